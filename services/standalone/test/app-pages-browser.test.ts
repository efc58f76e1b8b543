/**
 * The shop owner's first visit in a real browser (Chromium through playwright-core), against
 * `npm start`'s application on the demo data and WITHOUT APP_URL, at the address the server
 * prints (http://127.0.0.1:PORT): log in, see the chatbot list, open analytics and compare every
 * number shown with the JSON API's answer for the same window, follow an insights link to the
 * conversation page, watch the live view refresh itself, add a chatbot and read its snippet,
 * create an API key on the settings page and revoke it there. No page may log a CSP violation or a
 * script error. Screenshots of each page at 1280×800 and 390×844 go to SCREENSHOT_DIR (default:
 * a temporary directory, printed); an axe-core scan must find no serious or critical violation.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import t from 'tap';
import { chromium, type Page } from 'playwright-core';
import { pino } from 'pino';
import { loadConfig } from '@chatlytics/core';
import { createLocalRawContentStorage, importFixture, parseFixture } from '@chatlytics/dashboard';
import { openEngines } from '../src/engines.js';
import { buildStandalone } from '../src/standalone-app.js';
import { backfillEvents, type BackfillInput } from '../src/cli/backfill.js';
import { buildDemoFixture } from '../src/cli/demo-fixture.js';
import { CHROMIUM } from './tracker-harness.js';

// Under CI a missing browser is a failure, never a skip (CI installs chromium).
const skip = !fs.existsSync(CHROMIUM) && process.env.CI !== 'true' ? `${CHROMIUM} not installed` : false;
const AB_BOT = 'Outdoor Store Assistant';
const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';

t.test('log in at the printed address, read analytics, follow a conversation link, watch the live view', { skip }, async (t) => {
  t.setTimeout(600_000);
  const log = pino({ level: 'silent' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-app-pages-'));
  const shots = process.env.SCREENSHOT_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-screens-'));
  fs.mkdirSync(shots, { recursive: true });
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  // No APP_URL: what a fresh `npm start` runs with.
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SESSION_SECRET: 'app-pages-browser-'.padEnd(40, 'x') });

  // `npm run cli -- demo`, smaller: the same fixture builder and import path.
  const engines = await openEngines(config, log);
  await importFixture(engines.postgres.db, parseFixture(buildDemoFixture({ now: new Date(), days: 10, visitorsPerDay: 40 })), {
    storage: createLocalRawContentStorage(path.join(dataDir, 'storage')),
    onEvents: (events) => backfillEvents(engines.clickhouse, events as BackfillInput[], log),
  });
  await engines.close();

  const standalone = await buildStandalone(config, log, { pluginTimeout: 120_000 });
  t.teardown(() => standalone.close());
  const origin = await standalone.app.listen({ port: 0, host: '127.0.0.1' });
  t.match(origin, /^http:\/\/127\.0\.0\.1:\d+$/, 'the printed address');

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  const problems: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(String(e)));

  const shoot = async (name: string, p: Page = page) => {
    for (const [w, h] of [[1280, 800], [390, 844]]) {
      await p.setViewportSize({ width: w, height: h });
      await p.waitForTimeout(150); // the charts follow the resize
      await p.screenshot({ path: path.join(shots, `${name}-${w}x${h}.png`), fullPage: true });
    }
    await p.setViewportSize({ width: 1280, height: 800 });
  };

  await page.goto(`${origin}/`);
  await page.waitForURL(`${origin}/login`);
  await page.getByLabel('E-mail address').fill('demo@example.com');
  await page.getByLabel('Password').fill('demo-password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${origin}/app`);
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Your chatbots', 'logged in at 127.0.0.1 without APP_URL');
  t.equal(await page.locator('table.chatbots tbody tr').count(), 3, 'the demo account\'s three chatbots');
  await shoot('chatbots');

  await page.getByRole('link', { name: AB_BOT }).click();
  await page.waitForURL(/\/app\/[0-9a-f-]+\/analytics$/);
  const chatbotId = /\/app\/([0-9a-f-]+)\//.exec(page.url())![1];
  /** Every number on the analytics page against the JSON API's answer for `query`; the API's bodies. */
  const compareWithApi = async (query: string) => {
    await page.locator('.series canvas').first().waitFor();
    const shown = await page.$$eval('[data-stat]', (els) => els.map((e) => [e.getAttribute('data-stat')!, e.getAttribute('data-value')!, e.textContent!] as const));
    // A string, not a function: tsx would wrap a function's inner names in a helper the page does not have.
    const api = await page.evaluate(`(async () => {
      const out = {};
      for (const s of ['overview', 'engagement', 'popup-metrics', 'purchases', 'timeseries']) {
        out[s] = await (await fetch('/api/dashboard/analytics/stats/' + s + '?chatbot_id=${chatbotId}&${query}')).json();
      }
      return out;
    })()`) as Record<string, Record<string, unknown>>;
    t.ok(shown.length >= 20, `${query}: ${shown.length} numbers shown`);
    for (const [key, value, text] of shown) {
      const [stat, ...keyPath] = key.split('.');
      const expected = keyPath.reduce<unknown>((o: unknown, k: string) => (o as Record<string, unknown>)?.[k], api[stat]);
      t.equal(value, String(expected), `${query} ${key}: the page shows the API's number (${text})`);
    }
    const series = JSON.parse(await page.locator('#timeseries-data').textContent() ?? 'null');
    t.same(series, api.timeseries.days, `${query}: the chart draws the timeseries API's days`);
    return { shown, api };
  };
  await page.getByRole('link', { name: '7 days' }).click();
  await page.waitForURL(/timeframe=7$/);
  const { shown } = await compareWithApi('timeframe=7');
  t.ok(shown.some(([k]) => k.startsWith('purchases.ab_test')), 'the A/B block of the A/B chatbot');
  await shoot('analytics');

  // A custom range typed into the date fields: the days before yesterday, on the page and in the API alike.
  const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
  await page.getByLabel('From', { exact: true }).fill(day(6));
  await page.getByLabel('To', { exact: true }).fill(day(2));
  await page.getByRole('button', { name: 'Show range' }).click();
  await page.waitForURL(new RegExp(`from=${day(6)}&to=${day(2)}$`));
  const range = await compareWithApi(`from=${day(6)}&to=${day(2)}`);
  t.same([range.api.overview.start_date, range.api.overview.end_date, range.api.overview.timeframe_days], [day(6), day(2), 5], 'the range\'s five days');
  await shoot('analytics-range');

  await page.getByRole('link', { name: 'Insights' }).first().click();
  await page.getByRole('link', { name: 'month', exact: true }).click();
  await page.waitForURL(/insights\?timeframe=month$/);
  await shoot('insights');
  const link = page.locator('[data-insight-link]').first();
  const href = await link.getAttribute('href');
  await link.click();
  await page.waitForURL(`${origin}${href}`);
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Conversation');
  t.ok(await page.locator('.msg').count() > 0, 'the conversation\'s messages');
  t.ok(await page.getByRole('heading', { name: 'Analysis' }).isVisible());
  t.ok(await page.locator('[data-event-id]').count() > 0, 'the events of the visitor who chatted (the demo stores its token)');
  await shoot('conversation');

  await page.goto(`${origin}/app/${chatbotId}/live`);
  const live = page.locator('[data-live]');
  await live.locator('canvas').waitFor();
  const before = Number((await page.locator('#live-total').textContent())?.replace(/,/g, ''));
  // Three events tracked now, through the tracking route and the pipeline, must appear without a reload.
  // Sent with a browser's User-Agent, as the widget's are: Node's own ("node") is classified a bot,
  // and the live view, like every number a shop owner reads, leaves bots out.
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${origin}/api/analytics/track`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
      body: JSON.stringify({ event: 'visitor', token: `live-view-token-${i}`, data: { chatbot_id: chatbotId } }),
    });
    t.equal(res.status, 200, 'tracked');
  }
  const tracked = Date.now();
  await page.locator('#live-total', { hasText: String(before + 3) }).waitFor({ timeout: 30_000 });
  t.comment(`live view showed the tracked events ${Date.now() - tracked} ms after they were acknowledged`);
  t.ok(await page.locator('[data-live][data-refreshed]').count() === 1, 'refreshed by itself, no reload');
  await shoot('live');

  // Onboarding: the list's link, the form, the new chatbot's snippet page.
  await page.goto(`${origin}/app`);
  await page.locator('main a.add').click();
  await page.waitForURL(`${origin}/app/chatbots/new`);
  await shoot('onboarding');
  await page.getByLabel('Name').fill('Browser bot');
  await page.getByRole('button', { name: 'Create chatbot' }).click();
  await page.waitForURL(/\/app\/[0-9a-f-]+\/setup$/);
  const newBotId = /\/app\/([0-9a-f-]+)\/setup$/.exec(page.url())![1];
  t.match(await page.locator('#snippet').inputValue(), new RegExp(`data-chatbot-id="${newBotId}"`), 'the snippet names the new chatbot');
  await shoot('setup');

  // Settings: a key created on the page works until it is revoked on the page.
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.waitForURL(`${origin}/app/settings`);
  await page.getByLabel('Name').fill('browser key');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const newKey = await page.locator('#new-key').inputValue();
  const withKey = () => fetch(`${origin}/api/dashboard/chatbots`, { headers: { authorization: `Bearer ${newKey}` } });
  t.equal((await withKey()).status, 200, 'the key shown once works');
  await shoot('key-created');
  await page.goto(`${origin}/app/settings`);
  await page.locator('tr', { hasText: 'browser key' }).getByRole('link', { name: /Revoke/ }).click();
  await shoot('revoke');
  await page.getByRole('button', { name: 'Revoke this key' }).click();
  await page.waitForURL(`${origin}/app/settings`);
  t.ok(await page.getByRole('status').isVisible(), 'the revoke message');
  t.equal((await withKey()).status, 401, 'the revoked key is refused');
  // Two keys listed, one with a long name, for the phone layout: stacked rows, no sideways scrolling.
  for (const name of ['shop backend', 'nightly export to the data warehouse of the marketing team']) {
    await page.getByLabel('Name').fill(name);
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.waitForURL(`${origin}/app/settings/api-keys`);
    await page.goto(`${origin}/app/settings`);
  }
  await page.setViewportSize({ width: 390, height: 844 });
  const widths = await page.evaluate(`[document.documentElement.scrollWidth, document.documentElement.clientWidth,
    ...[...document.querySelectorAll('table.keys, table.keys tr')].map((e) => e.getBoundingClientRect().right)]`) as number[];
  t.ok(widths.slice(2).length >= 3, 'the key table and its rows');
  t.ok(Math.max(widths[0], ...widths.slice(2)) <= widths[1], `at 390×844 the key table fits the screen (${JSON.stringify(widths)})`);
  await shoot('settings');

  t.same(problems, [], 'no CSP violation or script error on any page');

  // axe-core, injected past the CSP in a context that bypasses it (only the scan does).
  const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const scanContext = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 800 }, storageState: await context.storageState() });
  const scan = await scanContext.newPage();
  for (const url of ['/app', `/app/${chatbotId}/analytics?timeframe=7`, `/app/${chatbotId}/analytics?from=${day(6)}&to=${day(2)}`, `/app/${chatbotId}/insights?timeframe=month`, href!, `/app/${chatbotId}/live`, '/app/settings', '/app/chatbots/new', `/app/${newBotId}/setup`, '/login']) {
    await scan.goto(`${origin}${url}`);
    await scan.addScriptTag({ content: axeSource });
    const violations = await scan.evaluate(`axe.run().then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`) as
      { id: string; impact: string; nodes: number }[];
    const severe = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    t.same(severe, [], `${url}: no serious or critical axe violation`);
    if (violations.length) t.comment(`${url}: minor axe findings ${JSON.stringify(violations)}`);
  }
  await scanContext.close();
  t.comment(`screenshots in ${shots}`);
});
