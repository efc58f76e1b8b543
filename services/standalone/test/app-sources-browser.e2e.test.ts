/**
 * Segments on the analytics page in a real browser (Chromium through playwright-core) on
 * `npm start`'s application with the demo data: the sources table against the JSON API's
 * `sources`, a value's link filtering the page, the filter bar, and the filter kept by every
 * link and form of the page (quick picks, range form, comparison switch, grouping, CSV links);
 * no CSP violation or script error, no serious or critical axe finding. Screenshots in SCREENSHOT_DIR.
 */
import fs from 'node:fs';
import t from 'tap';
import { startAppBrowser } from './app-browser-harness.js';
import { CHROMIUM } from './tracker-harness.js';

// Under CI a missing browser is a failure, never a skip (CI installs chromium).
const skip = !fs.existsSync(CHROMIUM) && process.env.CI !== 'true' ? `${CHROMIUM} not installed` : false;
const BOT = 'Outdoor Store Assistant';

t.test('analytics by source: the table, a filter kept across the page and its CSVs', { skip }, async (t) => {
  t.setTimeout(600_000);
  const { origin, page, problems, shots, shoot, axe } = await startAppBrowser(t, { dirPrefix: 'chatlytics-app-sources' });
  await page.getByRole('link', { name: BOT }).click();
  await page.waitForURL(/\/app\/[0-9a-f-]+\/analytics$/);
  const chatbotId = /\/app\/([0-9a-f-]+)\//.exec(page.url())![1];
  const api = (stat: string, query: string) => page.evaluate(`fetch('/api/dashboard/analytics/stats/${stat}?chatbot_id=${chatbotId}&${query}').then((r) => r.json())`) as Promise<Record<string, unknown>>;

  // The table: the API's rows, most visitors first.
  const sources = await api('sources', 'timeframe=7') as { rows: { value: string; visitors: number }[] };
  const shown = await page.$$eval('[data-sources="source"] tbody tr[data-source-row]', (rows) => rows.map((r) => ({
    value: r.getAttribute('data-source-row'), visitors: Number((r.querySelector('td')?.textContent ?? '').replace(/,/g, '')),
  })));
  t.same(shown, sources.rows.map((r) => ({ value: r.value, visitors: r.visitors })), 'the sources table is the API\'s');
  t.ok(sources.rows.some((r) => r.value === 'google') && sources.rows.some((r) => r.value === 'direct'), 'the demo\'s visits come from several sources');

  // A value's link filters the page: every figure is the filtered API's.
  await page.locator('[data-sources] tbody').getByRole('link', { name: 'google', exact: true }).click();
  await page.waitForURL(/source=google/);
  const filteredVisitors = (await api('engagement', 'timeframe=7&source=google')).total_users;
  t.equal(await page.locator('[data-stat="engagement.total_users"]').getAttribute('data-value'), String(filteredVisitors), 'Visitors: the filtered figure');
  t.ok(Number(filteredVisitors) > 0 && Number(filteredVisitors) < sources.rows.reduce((n, r) => n + r.visitors, 0), 'fewer visitors than unfiltered');
  t.equal(await page.getByLabel('Source', { exact: true }).inputValue(), 'google', 'the filter bar shows the filter');
  t.match(await page.locator('[data-filter-active]').innerText(), 'source “google”');

  // Kept by the quick picks, the comparison switch, the range form and the grouping.
  await page.getByRole('link', { name: '30 days' }).click();
  await page.waitForURL(/timeframe=30&source=google$/);
  await page.getByRole('link', { name: 'Hide the comparison' }).click();
  await page.waitForURL(/timeframe=30&compare=none&source=google$/);
  const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10);
  await page.getByLabel('From', { exact: true }).fill(day(20));
  await page.getByLabel('To', { exact: true }).fill(day(0));
  await page.getByRole('button', { name: 'Show range' }).click();
  await page.waitForURL((u) => u.searchParams.get('from') === day(20));
  const ranged = new URL(page.url()).searchParams;
  t.same([ranged.get('source'), ranged.get('compare')], ['google', 'none'], 'the range form keeps the filter and the comparison off');
  await page.getByRole('group', { name: 'Group by' }).getByRole('link', { name: 'Device' }).click();
  await page.waitForURL((u) => u.searchParams.get('by') === 'device');
  t.equal(new URL(page.url()).searchParams.get('source'), 'google', 'the grouping keeps the filter');
  t.equal(await page.locator('[data-sources]').getAttribute('data-sources'), 'device', 'grouped by device');

  // The filter bar adds a device; the CSV links carry the whole filter.
  await page.getByLabel('Device', { exact: true }).selectOption('mobile');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL((u) => u.searchParams.get('device') === 'mobile');
  t.equal(new URL(page.url()).searchParams.get('source'), 'google', 'both filters');
  const csv = await page.$$eval('a[data-csv]', (as) => as.map((a) => [a.getAttribute('data-csv'), a.getAttribute('href')]));
  t.same(csv.map(([name]) => name), ['overview', 'engagement', 'sources', 'timeseries', 'cart', 'popup-metrics', 'purchases'], 'a download per statistic, cart and sources included');
  for (const [name, href] of csv) {
    t.match(href, /source=google&device=mobile/, `${name}: the CSV keeps the filter`);
    if (name === 'sources') t.match(href, 'by=device', 'the sources CSV keeps the grouping');
    else t.notMatch(href, 'by=', `${name}: no grouping`);
  }
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('a[data-csv="engagement"]').click()]);
  const body = fs.readFileSync((await download.path())!, 'utf8');
  const url = new URL(page.url());
  const filtered = await api('engagement', `from=${url.searchParams.get('from')}&to=${url.searchParams.get('to')}&source=google&device=mobile`);
  // A table: the header of column names, then the one row of engagement's scalars.
  const [header, row] = body.split('\r\n').map((line) => line.split(','));
  t.equal(row[header.indexOf('"total_users"')], String(filtered.total_users), 'the file holds the filtered figure');
  await shoot('analytics-sources-filtered');

  await page.getByRole('link', { name: 'Clear the filter' }).click();
  await page.waitForURL((u) => !u.search.includes('source=') && u.search.includes('by=device'));
  t.equal(await page.locator('[data-filter-active]').count(), 0, 'cleared; the grouping stays');

  t.same(problems, [], 'no CSP violation or script error');
  for (const q of ['timeframe=7', 'timeframe=7&source=google&by=utm_campaign', 'timeframe=7&device=mobile&compare=none']) {
    const { severe, minor } = await axe(`/app/${chatbotId}/analytics?${q}`);
    t.same(severe, [], `${q}: no serious or critical axe violation`);
    if (minor.length) t.comment(`${q}: minor axe findings ${JSON.stringify(minor)}`);
  }
  t.comment(`screenshots in ${shots}`);
});
