/**
 * The owner's answer on the first screen (issue 58), in Chromium on `npm start`'s application
 * with the demo data: at 1280×800 and at 375×812 the five headline figures of the analytics page
 * (`data-metric`) lie inside the first viewport without scrolling, each shows the statistics
 * API's value for the same window, the tables with money are cards inside a phone's screen, and
 * axe finds no serious or critical violation at either width.
 */
import fs from 'node:fs';
import t from 'tap';
import { startAppBrowser } from './app-browser-harness.js';
import { CHROMIUM } from './tracker-harness.js';

// Under CI a missing browser is a failure, never a skip (CI installs chromium).
const skip = !fs.existsSync(CHROMIUM) && process.env.CI !== 'true' ? `${CHROMIUM} not installed` : false;
const BOT = 'Outdoor Store Assistant';
const METRICS = ['revenue_after_chat', 'conversion_with_chat', 'conversion_without_chat', 'visitors', 'chats_started'];
const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 375, height: 812 }];

t.test('the headline row is inside the first screen at both widths and shows the API\'s figures', { skip }, async (t) => {
  t.setTimeout(600_000);
  const { origin, page, problems, shoot, axe } = await startAppBrowser(t, { dirPrefix: 'chatlytics-app-headline' });
  await page.getByRole('link', { name: BOT }).click();
  await page.waitForURL(/\/app\/[0-9a-f-]+\/analytics$/);
  const chatbotId = /\/app\/([0-9a-f-]+)\//.exec(page.url())![1];
  const url = `/app/${chatbotId}/analytics?timeframe=7`;
  await page.goto(`${origin}${url}`);

  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    await page.evaluate('window.scrollTo(0, 0)');
    const boxes = await page.$$eval('[data-metric]', (els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return { metric: e.getAttribute('data-metric'), top: r.top, bottom: r.bottom, left: r.left, right: r.right };
    }));
    t.same(boxes.map((b) => b.metric), METRICS, `${viewport.width}: the five headlines, in order`);
    for (const b of boxes) {
      t.ok(b.top >= 0 && b.bottom <= viewport.height && b.left >= 0 && b.right <= viewport.width,
        `${viewport.width}×${viewport.height}: ${b.metric} inside the first viewport (${JSON.stringify(b)})`);
    }
  }
  // Still at 375 px: no sideways scrolling, and the tables with money (sources, popups, A/B) are cards inside the screen.
  const widths = await page.evaluate(`[document.documentElement.scrollWidth, document.documentElement.clientWidth,
    ...[...document.querySelectorAll('table.cards tr')].map((e) => e.getBoundingClientRect().right)]`) as number[];
  t.ok(widths.length > 4, 'card rows on the page');
  t.ok(Math.max(widths[0], ...widths.slice(2)) <= widths[1], `375 px: every table row inside the screen (${JSON.stringify(widths.slice(0, 6))}…)`);
  await page.setViewportSize(VIEWPORTS[0]);

  // The values: the statistics API's for the same window (conversion without chat of the visitors who did not chat).
  const api = await page.evaluate(`Promise.all(['purchases', 'engagement', 'popup-metrics'].map((s) =>
    fetch('/api/dashboard/analytics/stats/' + s + '?chatbot_id=${chatbotId}&timeframe=7').then((r) => r.json())))`) as
    [Record<string, number>, Record<string, number>, { conversations: { total: number } }];
  const [p, e, popup] = api;
  const value = (m: string) => page.locator(`[data-metric="${m}"]`).getAttribute('data-value').then(Number);
  t.equal(await value('revenue_after_chat'), p.total_revenue_chatted_purchased);
  t.equal(await value('conversion_with_chat'), p.conversion_rate_with_chat);
  const without = Math.round(((p.total_users_purchased - p.total_users_chatted_purchased) / (p.total_users - p.total_users_chatted)) * 10_000) / 100;
  t.equal(await value('conversion_without_chat'), without, 'buyers who did not chat over the visitors who did not chat');
  t.match(await page.locator('[data-metric="conversion_without_chat"]').innerText(), /visitors who did not chat/, 'its base is named');
  t.equal(await value('visitors'), e.total_users);
  t.equal(await value('chats_started'), popup.conversations.total);
  t.equal(await page.locator('[data-metric] svg.spark').count(), 5, 'a sparkline each');
  t.ok(await page.locator('[data-metric="revenue_after_chat"]').innerText().then((s) => /of all revenue/.test(s)), 'revenue after chat with its share');
  await shoot('analytics-headline');

  for (const viewport of VIEWPORTS) {
    const { severe, minor } = await axe(url, viewport);
    t.same(severe, [], `${viewport.width}: no serious or critical axe violation`);
    if (minor.length) t.comment(`${viewport.width}: minor axe findings ${JSON.stringify(minor)}`);
  }
  t.same(problems, [], 'no CSP violation or script error');
});
