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
import t from 'tap';
import { startAppBrowser } from './app-browser-harness.js';
import { CHROMIUM } from './tracker-harness.js';

// Under CI a missing browser is a failure, never a skip (CI installs chromium).
const skip = !fs.existsSync(CHROMIUM) && process.env.CI !== 'true' ? `${CHROMIUM} not installed` : false;
const AB_BOT = 'Outdoor Store Assistant';
const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';

t.test('log in at the printed address, read analytics, follow a conversation link, watch the live view', { skip }, async (t) => {
  t.setTimeout(600_000);
  // No APP_URL: what a fresh `npm start` runs with; the harness logs in at the printed address.
  const { origin, browser, page, problems, shots, shoot, axe } = await startAppBrowser(t, { dirPrefix: 'chatlytics-app-pages' });
  t.match(origin, /^http:\/\/127\.0\.0\.1:\d+$/, 'the printed address');
  // Logged out, the root sends a browser to the log-in page.
  const anonymous = await browser.newContext();
  const anonymousPage = await anonymous.newPage();
  await anonymousPage.goto(`${origin}/`);
  t.equal(new URL(anonymousPage.url()).pathname, '/login', 'GET / without a session lands on /login');
  await anonymous.close();
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Your chatbots', 'logged in at 127.0.0.1 without APP_URL');
  t.equal(await page.locator('table.chatbots tbody tr[data-chatbot]').count(), 3, 'the demo account\'s three chatbots');
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
      for (const s of ['overview', 'engagement', 'popup-metrics', 'purchases', 'cart', 'timeseries']) {
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
  await shoot('analytics-first-screen', page, false);

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
  // The tab carries the analytics page's range, in the insights page's words.
  await page.waitForURL(new RegExp(`insights\\?timeframe=${day(6)}\\.\\.${day(2)}$`));
  await page.getByRole('link', { name: '30 days', exact: true }).click();
  await page.waitForURL(/insights\?timeframe=30(%20|\+)days$/);
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
  // A request from Node.js itself (its own User-Agent): not counted, but the page says so.
  const botsBefore = Number(await page.locator('#live-bots').getAttribute('data-bot-requests'));
  const fromNode = await fetch(`${origin}/api/analytics/track`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'visitor', token: 'live-view-node-token', data: { chatbot_id: chatbotId } }),
  });
  t.equal(fromNode.status, 200, 'accepted, classified a bot');
  await page.locator(`#live-bots[data-bot-requests="${botsBefore + 1}"]`).waitFor({ timeout: 30_000 });
  t.ok(await page.locator('#live-bots').isVisible(), 'the bot note is shown');
  t.match(await page.locator('#live-bots').textContent(), /came from bots or scripts \(e\.g\. a Node\.js test\) and (is|are) not counted\./);
  t.equal(Number((await page.locator('#live-total').textContent())?.replace(/,/g, '')), before + 3, 'and the events stay uncounted');
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
  // The install check: waiting while nothing was tracked, then the first event, without a reload.
  await page.locator('#install-check[data-installed="false"]').waitFor({ timeout: 15_000 });
  const first = await fetch(`${origin}/api/analytics/track`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
    body: JSON.stringify({ event: 'visitor', token: 'install-check-token', data: { chatbot_id: newBotId } }),
  });
  t.equal(first.status, 200, 'the first event tracked');
  await page.locator('#install-check[data-installed="true"]').waitFor({ timeout: 30_000 });
  t.match(await page.locator('#install-check').textContent(), /Events received/, 'the setup tab says the tag works');
  await shoot('setup');

  // Settings: a key created on the page works until it is revoked on the page.
  await page.getByRole('link', { name: 'Settings', exact: true }).click();
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

  // Every page at both widths: no axe violation of any impact.
  const pages = ['/app', `/app/${chatbotId}/analytics?timeframe=7`, `/app/${chatbotId}/analytics?timeframe=1`, `/app/${chatbotId}/analytics?from=${day(6)}&to=${day(2)}`, `/app/${chatbotId}/insights?timeframe=month`, href!,
    `/app/${chatbotId}/live`, `/app/${chatbotId}/alerts`, `/app/${chatbotId}/setup`, `/app/${chatbotId}/tracking`, '/app/settings', '/app/settings/api-keys', '/app/chatbots/new', `/app/${newBotId}/setup`,
    `/app/${newBotId}/analytics`, '/app/profile', '/app/no-such-page', '/login'];
  for (const url of pages) {
    for (const viewport of [{ width: 1280, height: 800 }, { width: 375, height: 812 }]) {
      const { severe, minor } = await axe(url, viewport);
      t.same([...severe, ...minor], [], `${url} at ${viewport.width} px: no axe violation`);
    }
  }
  t.comment(`screenshots in ${shots}`);
});
