/**
 * The Largest Contentful Paint of the analytics page on loopback (`npm run bench:lcp`), in
 * Chromium against `npm start`'s application on a small demo data set, logged in as the demo
 * user: a fresh page per load; the first load of a window is uncached (its statistics are
 * computed for the request), the repeat of 7 days may come from the statistics cache. One figure
 * per load and the worst of them; `--assert` exits 1 when a load exceeds the budget (1,000 ms).
 * CHROMIUM names the browser (default /usr/bin/chromium), as for the browser tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { pino } from 'pino';
import { loadConfig } from '@chatlytics/core';
import { parseFixture } from '@chatlytics/dashboard';
import { buildDemoFixture, buildStandalone, importIntoEngines, openEngines } from '@chatlytics/standalone';
import { opt } from '../lib/args.js';
import { defineBench } from '../lib/bench.js';
import type { Report } from '../lib/report.js';

const BUDGET_MS = 1000;
const WINDOWS = ['timeframe=30', 'timeframe=90', 'timeframe=7', 'timeframe=7'];
const AB_BOT = 'Outdoor Store Assistant';
const LCP = `new Promise((resolve) => new PerformanceObserver((list) => {
  const all = list.getEntries(); resolve(all[all.length - 1].startTime);
}).observe({ type: 'largest-contentful-paint', buffered: true }))`;

export default defineBench({
  summary: 'The Largest Contentful Paint of the analytics page in Chromium against npm start\'s application (small demo data), uncached and cached loads.',
  options: { assert: opt.flag('exit 1 when a load exceeds the 1,000 ms budget') },
  run: (o, report) => main(o.assert, report),
});

async function main(assert: boolean, report: Report) {
  const log = pino({ level: 'silent' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-lcp-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SESSION_SECRET: 'chatlytics-lcp-'.padEnd(40, 'x') });
  const engines = await openEngines(config, log);
  await importIntoEngines(engines, parseFixture(buildDemoFixture({ now: new Date(), days: 10, visitorsPerDay: 40 })), { storageDir: path.join(dataDir, 'storage'), config, log });
  await engines.close();
  const app = await buildStandalone(config, log, { pluginTimeout: 120_000 });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const origin = await app.app.listen({ port: 0, host: '127.0.0.1' });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${origin}/login`);
    await page.getByLabel('E-mail address').fill('demo@example.com');
    await page.getByLabel('Password').fill('demo-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${origin}/app`);
    await page.getByRole('link', { name: AB_BOT }).click();
    await page.waitForURL(/\/app\/[0-9a-f-]+\/analytics$/);
    const analytics = page.url();
    const lcpMs: Record<string, number[]> = {};
    for (const window of WINDOWS) {
      const p = await context.newPage();
      await p.goto(`${analytics}?${window}`, { waitUntil: 'load' });
      (lcpMs[window] ??= []).push(Math.round(await p.evaluate(LCP) as number));
      report.figure('LCP', lcpMs[window].at(-1)!, 'ms', { page: 'analytics', window, load: lcpMs[window].length });
      await p.close();
    }
    const worst = Math.max(...Object.values(lcpMs).flat());
    report.figure('LCP worst', worst, 'ms', { page: 'analytics', budget: BUDGET_MS });
    report.text(`analytics page LCP by window: ${JSON.stringify(lcpMs)}; worst ${worst} ms (budget ${BUDGET_MS} ms)`);
    if (assert && worst > BUDGET_MS) process.exitCode = 1;
  } finally {
    await browser.close();
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

