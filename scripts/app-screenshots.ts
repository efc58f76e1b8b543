/**
 * Saves the app pages as the owner sees them, from a running `npm start` with the demo data
 * (`npm run cli -- demo` first), in headless Chromium: analytics at 1280×800 and 375×812,
 * insights, setup and the chatbot list. Needs /usr/bin/chromium.
 *   npx tsx scripts/app-screenshots.ts [origin (default http://localhost:3000)] [out dir (default services/dashboard/docs)]
 * `npm run screenshot:dashboard` runs the app pages' browser test, which saves the same pages.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const origin = process.argv[2] ?? 'http://localhost:3000';
const out = path.resolve(process.argv[3] ?? path.join(root, 'services/dashboard/docs'));
const user = { email: process.env.DEMO_EMAIL ?? 'demo@example.com', password: process.env.DEMO_PASSWORD ?? 'demo-password' };

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${origin}/login`);
  await page.getByLabel('E-mail address').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${origin}/app`);
  fs.mkdirSync(out, { recursive: true });
  const shot = async (name: string, full = true) => {
    await page.waitForTimeout(200);
    await page.screenshot({ path: path.join(out, `${name}.png`), fullPage: full });
    console.log(`wrote ${path.relative(root, path.join(out, `${name}.png`))}`);
  };
  await shot('chatbots');
  const first = await page.locator('table.chatbots a[href$="/analytics"]').first().getAttribute('href');
  const chatbot = first!.split('/')[2];
  await page.goto(`${origin}/app/${chatbot}/analytics?timeframe=7`);
  await shot('analytics', false);
  await shot('analytics-full');
  await page.setViewportSize({ width: 375, height: 812 });
  await shot('analytics-phone', false);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${origin}/app/${chatbot}/insights`);
  await shot('insights');
  await page.goto(`${origin}/app/${chatbot}/setup`);
  await shot('setup');
} finally {
  await browser.close();
}
