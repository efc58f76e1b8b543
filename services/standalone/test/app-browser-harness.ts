/**
 * A logged-in Chromium on `npm start`'s application with the demo data and WITHOUT APP_URL, at
 * the address the server prints: what the app pages' browser tests start from. Console errors
 * and page errors (a CSP violation is one) are collected in `problems`; `shoot` saves a page at
 * 1280×800 and 375×812 in SCREENSHOT_DIR (default: a temporary directory); `axe` scans a page
 * past the CSP in a context of its own (only the scan bypasses it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { pino } from 'pino';
import { loadConfig } from '@chatlytics/core';
import { parseFixture } from '@chatlytics/dashboard';
import { openEngines } from '../src/engines.js';
import { buildStandalone } from '../src/standalone-app.js';
import { importIntoEngines } from '../src/cli/import-into-engines.js';
import { buildDemoFixture } from '../src/cli/demo-fixture.js';
import { CHROMIUM } from './tracker-harness.js';

export const DEMO_USER = { email: 'demo@example.com', password: 'demo-password' };

export interface AppBrowser {
  origin: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  problems: string[];
  shots: string;
  /** Both sizes; `fullPage: false` keeps the first screen only. */
  shoot(name: string, p?: Page, fullPage?: boolean): Promise<void>;
  /** The serious and critical axe-core findings of `url`, and the rest for the log. */
  axe(url: string, viewport?: { width: number; height: number }): Promise<{ severe: unknown[]; minor: unknown[] }>;
}

export async function startAppBrowser(t: { teardown(fn: () => unknown): void }, opts: { dirPrefix: string }): Promise<AppBrowser> {
  const log = pino({ level: 'silent' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${opts.dirPrefix}-`));
  const shots = process.env.SCREENSHOT_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-screens-'));
  fs.mkdirSync(shots, { recursive: true });
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SESSION_SECRET: `${opts.dirPrefix}-`.padEnd(40, 'x') });

  // `npm run cli -- demo`, smaller: the same fixture builder and import path.
  const engines = await openEngines(config, log);
  await importIntoEngines(engines, parseFixture(buildDemoFixture({ now: new Date(), days: 10, visitorsPerDay: 40 })), { storageDir: path.join(dataDir, 'storage'), config, log });
  await engines.close();

  const standalone = await buildStandalone(config, log, { pluginTimeout: 120_000 });
  t.teardown(() => standalone.close());
  const origin = await standalone.app.listen({ port: 0, host: '127.0.0.1' });

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  const problems: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(String(e)));

  await page.goto(`${origin}/login`);
  await page.getByLabel('E-mail address').fill(DEMO_USER.email);
  await page.getByLabel('Password').fill(DEMO_USER.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${origin}/app`);

  const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return {
    origin, browser, context, page, problems, shots,
    async shoot(name, p = page, fullPage = true) {
      for (const [w, h] of [[1280, 800], [375, 812]] as const) {
        await p.setViewportSize({ width: w, height: h });
        await p.waitForTimeout(150); // the charts follow the resize
        await p.evaluate('window.scrollTo(0, 0)');
        await p.screenshot({ path: path.join(shots, `${name}-${w}x${h}.png`), fullPage });
      }
      await p.setViewportSize({ width: 1280, height: 800 });
    },
    async axe(url, viewport = { width: 1280, height: 800 }) {
      const scanContext = await browser.newContext({ bypassCSP: true, viewport, storageState: await context.storageState() });
      try {
        const scan = await scanContext.newPage();
        await scan.goto(`${origin}${url}`);
        await scan.addScriptTag({ content: axeSource });
        const violations = await scan.evaluate(`axe.run().then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })))`) as
          { id: string; impact: string; nodes: number }[];
        const severe = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        return { severe, minor: violations.filter((v) => !severe.includes(v)) };
      } finally {
        await scanContext.close();
      }
    },
  };
}
