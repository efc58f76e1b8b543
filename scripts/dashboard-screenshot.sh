#!/usr/bin/env bash
# Regenerates the app's pictures in services/dashboard/docs/ (the README's analytics.png among
# them): runs the Chromium end-to-end test of the app pages (npm start's application on demo
# data) with SCREENSHOT_DIR set and keeps the chatbot list, analytics at 1280×800 (the whole
# page) and the first screen of a 375×812 phone,
# insights and a new chatbot's setup page. Needs /usr/bin/chromium.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
(cd "$root" && SCREENSHOT_DIR="$dir" npx tap --reporter=silent services/standalone/test/app-pages-browser.e2e.test.ts)
docs="$root/services/dashboard/docs"
mkdir -p "$docs"
cp "$dir/chatbots-1280x800.png" "$docs/chatbots.png"
cp "$dir/analytics-1280x800.png" "$docs/analytics.png"
cp "$dir/analytics-first-screen-375x812.png" "$docs/analytics-phone.png"
cp "$dir/insights-1280x800.png" "$docs/insights.png"
cp "$dir/setup-1280x800.png" "$docs/setup.png"
echo "wrote services/dashboard/docs/{chatbots,analytics,analytics-phone,insights,setup}.png"
