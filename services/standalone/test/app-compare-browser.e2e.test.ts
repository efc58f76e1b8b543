/**
 * The analytics page's comparison with the previous period in a real browser (Chromium through
 * playwright-core) on `npm start`'s application with the demo data: each headline figure's
 * arrow and percentage against the JSON API's `compare=previous` answer, the day-by-day chart's
 * dashed previous-period series, the switch off and on, no CSP violation or script error, and
 * no serious or critical axe finding with or without the comparison. Screenshots in SCREENSHOT_DIR.
 */
import fs from 'node:fs';
import t from 'tap';
import { startAppBrowser } from './app-browser-harness.js';
import { CHROMIUM } from './tracker-harness.js';

// Under CI a missing browser is a failure, never a skip (CI installs chromium).
const skip = !fs.existsSync(CHROMIUM) && process.env.CI !== 'true' ? `${CHROMIUM} not installed` : false;
const AB_BOT = 'Outdoor Store Assistant';

t.test('analytics compared with the previous period: arrows, percentages, the dashed overlay, the switch', { skip }, async (t) => {
  t.setTimeout(600_000);
  const { origin, page, problems, shots, shoot, axe } = await startAppBrowser(t, { dirPrefix: 'chatlytics-app-compare' });
  await page.getByRole('link', { name: AB_BOT }).click();
  await page.waitForURL(/\/app\/[0-9a-f-]+\/analytics$/);
  const chatbotId = /\/app\/([0-9a-f-]+)\//.exec(page.url())![1];

  for (const query of ['timeframe=1', 'timeframe=7']) {
    await page.goto(`${origin}/app/${chatbotId}/analytics?${query}`);
    await page.locator('.series canvas').first().waitFor();
    // Each figure with its change cell: key, value, and what the cell says.
    const shown = await page.$$eval('dd[data-stat] + dd.change', (els) => els.map((e) => {
      const figure = e.previousElementSibling!;
      return { key: figure.getAttribute('data-stat')!, kind: e.getAttribute('data-change')!, previous: e.getAttribute('data-previous')!, text: e.textContent ?? '' };
    }));
    const api = await page.evaluate(`(async () => {
      const out = {};
      for (const s of ['overview', 'engagement', 'popup-metrics', 'purchases', 'cart', 'timeseries']) {
        // "24 hours" draws the series by hour (timeseries with bucket=hour).
        const bucket = s === 'timeseries' && '${query}' === 'timeframe=1' ? '&bucket=hour' : '';
        out[s] = await (await fetch('/api/dashboard/analytics/stats/' + s + '?chatbot_id=${chatbotId}&${query}&compare=previous' + bucket)).json();
      }
      return out;
    })()`) as Record<string, Record<string, unknown>>;
    t.ok(shown.length >= 19, `${query}: ${shown.length} figures with their change`);
    const pick = (o: unknown, path: string[]) => path.reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], o);
    for (const f of shown) {
      const [stat, ...path] = f.key.split('.');
      const [now, before] = [Number(pick(api[stat], path)), Number(pick(api[stat].previous, path))];
      t.equal(f.previous, String(pick(api[stat].previous, path)), `${query} ${f.key}: the API's previous value`);
      const expected = now === before ? (now === 0 ? 'none' : 'same') : before === 0 ? 'new' : now > before ? 'up' : 'down';
      t.equal(f.kind, expected, `${query} ${f.key}: ${f.text}`);
      if (expected === 'up' || expected === 'down') {
        const pct = Math.round(((now - before) / before) * 1000) / 10;
        t.match(f.text, new RegExp(`^${expected === 'up' ? '▲ \\+' : '▼ −'}${Math.abs(pct).toLocaleString('en')} % vs `), `${query} ${f.key}: arrow, sign and percentage`);
      }
    }
    t.ok(shown.some((f) => f.kind === 'up' || f.kind === 'down'), `${query}: some figure changed`);
    // The chart: the four series and, dashed, the same four over the previous period.
    const legend = await page.locator('.series .u-legend .u-series').allInnerTexts();
    t.ok(legend.filter((l) => /previous period/.test(l)).length === 4, `${query}: four previous-period series in the chart's legend`);
    t.notOk(legend.some((l) => l.includes('--')), `${query}: the legend names the lines, no placeholder values (${JSON.stringify(legend.slice(0, 2))})`);
    const previousDays = JSON.parse(await page.locator('#timeseries-previous-data').textContent() ?? 'null');
    const hourly = query === 'timeframe=1';
    t.same(previousDays, (api.timeseries.previous as { days: unknown; hours?: unknown })[hourly ? 'hours' : 'days'], `${query}: the overlay draws the API's previous ${hourly ? 'hours' : 'days'}`);
    const line = await page.locator('p.window').innerText();
    const prev = api.overview.previous as { start_date: string; end_date: string };
    t.match(line, `compared with the previous`, `${query}: the window line names the comparison`);
    t.match(line, `${prev.start_date} to ${prev.end_date}`, `${query}: and its days`);
  }
  await shoot('analytics-compare');

  await page.getByRole('link', { name: 'Hide the comparison' }).click();
  await page.waitForURL(/timeframe=7&compare=none$/);
  await page.locator('.series canvas').first().waitFor();
  t.equal(await page.locator('dd.change').count(), 0, 'off: no changes shown');
  t.equal(await page.locator('.series .u-legend .u-series', { hasText: 'previous period' }).count(), 0, 'off: no dashed series');
  await page.getByRole('link', { name: '30 days' }).click();
  await page.waitForURL(/timeframe=30&compare=none$/);
  t.equal(await page.locator('dd.change').count(), 0, 'the quick picks keep it off');
  await shoot('analytics-compare-off');
  await page.getByRole('link', { name: 'Compare with the previous period' }).click();
  await page.waitForURL(/timeframe=30$/);
  t.ok(await page.locator('dd.change').count() >= 19, 'and on again');

  t.same(problems, [], 'no CSP violation or script error');
  for (const url of [`/app/${chatbotId}/analytics?timeframe=7`, `/app/${chatbotId}/analytics?timeframe=1`, `/app/${chatbotId}/analytics?timeframe=7&compare=none`]) {
    const { severe, minor } = await axe(url);
    t.same(severe, [], `${url}: no serious or critical axe violation`);
    if (minor.length) t.comment(`${url}: minor axe findings ${JSON.stringify(minor)}`);
  }
  t.comment(`screenshots in ${shots}`);
});
