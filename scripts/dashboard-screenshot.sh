#!/usr/bin/env bash
# Regenerates services/dashboard/docs/analytics.png, the README's picture of the dashboard: runs
# the Chromium end-to-end test of the app pages (npm start's application on demo data) with
# SCREENSHOT_DIR set and keeps its analytics page at 1280×800. Needs /usr/bin/chromium.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
(cd "$root" && SCREENSHOT_DIR="$dir" npx tap --reporter=silent services/standalone/test/app-pages-browser.test.ts)
mkdir -p "$root/services/dashboard/docs"
cp "$dir/analytics-1280x800.png" "$root/services/dashboard/docs/analytics.png"
echo "wrote services/dashboard/docs/analytics.png"
