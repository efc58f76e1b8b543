/**
 * The cart steps and revenue by topic in a real browser (Chromium through playwright-core) on
 * `npm start`'s application with the demo data: the analytics funnel's cart steps and "abandoned
 * carts after chat" equal the JSON API's cart answer; the insights page's revenue and conversion
 * beside each count, and the missing information ranked by abandoned carts, equal the API's
 * topics answer for the same window; no CSP violation or script error; no serious or critical
 * axe finding. Screenshots in SCREENSHOT_DIR.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startAppBrowser } from './app-browser-harness.js';
import { CHROMIUM } from './tracker-harness.js';

const skip = !fs.existsSync(CHROMIUM) && process.env.CI !== 'true' ? `${CHROMIUM} not installed` : false;
const BOT = 'Outdoor Store Assistant';
const DIMENSIONS = ['intent', 'product', 'clicked_product', 'complaint', 'missing_information'];

t.test('cart steps on the analytics page, revenue by topic on the insights page', { skip }, async (t) => {
  t.setTimeout(600_000);
  const { origin, page, problems, shots, shoot, axe } = await startAppBrowser(t, { dirPrefix: 'chatlytics-app-cart' });
  await page.getByRole('link', { name: BOT }).click();
  await page.waitForURL(/\/app\/[0-9a-f-]+\/analytics$/);
  const chatbotId = /\/app\/([0-9a-f-]+)\//.exec(page.url())![1];
  const api = (stat: string, query: string) => page.evaluate(`fetch('/api/dashboard/analytics/stats/${stat}?chatbot_id=${chatbotId}&${query}').then((r) => r.json())`) as Promise<Record<string, any>>;

  await page.goto(`${origin}/app/${chatbotId}/analytics?timeframe=7`);
  const cart = await api('cart', 'timeframe=7&compare=previous');
  t.ok(cart.users_added_to_cart > 0 && cart.chatted.users_abandoned > 0, 'the demo shop has carts, some abandoned after chat');
  const funnel = page.getByRole('img', { name: /^Engagement funnel/ });
  for (const [label, value] of [['Added to cart', cart.users_added_to_cart], ['Went to the cart', cart.users_went_to_cart], ['Added and bought', cart.users_added_and_purchased]]) {
    t.match(await funnel.locator('text', { hasText: label }).textContent(), `${label} ${value.toLocaleString('en')}`, `funnel step ${label}: the API's number`);
  }
  for (const key of ['users_added_to_cart', 'cart_conversion_rate', 'chatted.users_abandoned', 'chatted.abandoned_value']) {
    const path = key.split('.');
    const value = path.reduce((v, k) => v[k], cart);
    t.equal(await page.locator(`dd[data-stat="cart.${key}"]`).getAttribute('data-value'), String(value), `cart.${key}`);
    t.equal(await page.locator(`dd[data-stat="cart.${key}"] + dd.change`).getAttribute('data-previous'), String(path.reduce((v, k) => v[k], cart.previous)), `cart.${key}: compared`);
  }
  for (const key of ['chatted.users_abandoned', 'chatted.abandoned_value']) {
    t.match(await page.locator(`dd[data-stat="cart.${key}"] + dd.change`).getAttribute('class'), /\blower-is-better\b/, `cart.${key}: fewer is better, in colour`);
  }
  const line = await page.locator('[data-abandoned-after-chat]').innerText();
  const eur = (v: number) => `€${v.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  t.match(line.replace(/\s+/g, ' '), `Abandoned carts after chat: ${cart.chatted.users_abandoned.toLocaleString('en')}, `, 'the abandoned carts after chat, in words');
  t.match(line, `, ${eur(cart.chatted.abandoned_value)} value`, 'and their value in euros');
  await shoot('analytics-cart');
  await page.locator('section[aria-labelledby="h-funnel"]').screenshot({ path: path.join(shots, 'analytics-cart-funnel.png') });

  await page.goto(`${origin}/app/${chatbotId}/insights?timeframe=month`);
  const topics: Record<string, Record<string, any>> = {};
  for (const d of DIMENSIONS) topics[d] = await api('topics', `timeframe=30&dimension=${d}`);
  let withRevenue = 0;
  for (const d of DIMENSIONS) {
    const shown = await page.$$eval(`section[data-topics="${d}"] li`, (lis) => lis.map((li) => ({
      item: li.querySelector('.item')!.textContent!, revenue: li.querySelector('.revenue')?.getAttribute('data-revenue') ?? null,
      conversion: li.querySelector('.revenue')?.getAttribute('data-conversion') ?? null,
    })));
    t.ok(shown.length > 0, `${d}: a list`);
    for (const s of shown) {
      const item = topics[d].items.find((i: { item: string }) => i.item.toLowerCase() === s.item.trim().toLowerCase());
      t.same([s.revenue, s.conversion], item ? [String(item.revenue), String(item.conversion_rate)] : [null, null], `${d} ${s.item}: the API's revenue and conversion`);
      if (item?.revenue > 0) withRevenue++;
    }
  }
  t.ok(withRevenue > 0, `${withRevenue} items shown with revenue`);
  const missing = topics.missing_information;
  t.equal(await page.locator('[data-missing-total]').getAttribute('data-missing-total'), String(missing.totals.abandoned_value), 'what the assistant did not know cost: the API\'s total');
  const costs = (await page.locator('[data-missing-cost] [data-abandoned-value]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-abandoned-value')))));
  const expected = missing.items.filter((i: { abandoned_carts: number }) => i.abandoned_carts > 0).map((i: { abandoned_value: number }) => i.abandoned_value).sort((a: number, b: number) => b - a).slice(0, 10);
  t.same(costs, expected, 'missing information ranked by the value of its visitors\' abandoned carts');
  await shoot('insights-topics');

  t.same(problems, [], 'no CSP violation or script error');
  for (const url of [`/app/${chatbotId}/analytics?timeframe=7`, `/app/${chatbotId}/insights?timeframe=month`]) {
    const { severe, minor } = await axe(url);
    t.same(severe, [], `${url}: no serious or critical axe violation`);
    if (minor.length) t.comment(`${url}: minor axe findings ${JSON.stringify(minor)}`);
  }
  t.comment(`screenshots in ${shots}`);
});
