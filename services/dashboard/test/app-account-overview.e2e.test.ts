/**
 * The chatbot list is an account overview (issue 58): per chatbot its visitors and revenue after
 * chat over the last 7 days with their change against the 7 days before, equal to the statistics
 * API's figures for the same chatbot and window, and the account's totals (their sums) first.
 */
import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { ANN, IDS, KEY, digestWorld, loginCookie, openDigestClickHouse } from './digest-harness.js';
import { headlineChange } from '../src/html/format.js';

const ch = await openDigestClickHouse(t);
const pglite = databaseVariants().find((v) => v.name === 'pglite')!;

/** The `data-*` attributes of the cell of `stat` in the row that starts with `rowMarker`. */
function cell(body: string, rowMarker: string, stat: string): { value: number; previous: number; change: string } {
  const row = body.slice(body.indexOf(rowMarker));
  const m = new RegExp(`data-stat="${stat}" data-value="([^"]*)" data-previous="([^"]*)" data-change="([^"]*)"`).exec(row.slice(0, row.indexOf('</tr>')));
  if (!m) throw new Error(`no ${stat} in the row ${rowMarker}`);
  return { value: Number(m[1]), previous: Number(m[2]), change: m[3]! };
}

t.test('the chatbot list shows each chatbot\'s figures of the API and their sums', async (t) => {
  const world = await digestWorld(t, pglite, ch);
  const app = await world.build({ alerts: { evaluateIntervalMs: 0 } });
  const cookie = await loginCookie(app, ANN);
  const page = await app.inject({ method: 'GET', url: '/app', headers: { cookie, accept: 'text/html' } });
  t.equal(page.statusCode, 200, page.body.slice(0, 300));
  t.match(page.body, /last 7 days/);

  const api = async (stat: string, chatbot: string) => {
    const res = await app.inject({ method: 'GET', url: `/api/dashboard/analytics/stats/${stat}?chatbot_id=${chatbot}&timeframe=7&compare=previous`, headers: { authorization: `Bearer ${KEY}` } });
    t.equal(res.statusCode, 200, `${stat} of ${chatbot}`);
    return res.json();
  };
  const sums = { visitors: 0, previousVisitors: 0, revenue: 0, previousRevenue: 0 };
  for (const bot of [IDS.botA, IDS.botB]) {
    const [e, p] = [await api('engagement', bot), await api('purchases', bot)];
    const visitors = cell(page.body, `data-chatbot="${bot}"`, 'chatbots.visitors');
    const revenue = cell(page.body, `data-chatbot="${bot}"`, 'chatbots.revenue_after_chat');
    t.same(visitors, { value: e.total_users, previous: e.previous.total_users, change: headlineChange(e.total_users, e.previous.total_users).kind }, `${bot}: visitors`);
    t.same(revenue, {
      value: p.total_revenue_chatted_purchased, previous: p.previous.total_revenue_chatted_purchased,
      change: headlineChange(p.total_revenue_chatted_purchased, p.previous.total_revenue_chatted_purchased).kind,
    }, `${bot}: revenue after chat`);
    sums.visitors += visitors.value;
    sums.previousVisitors += visitors.previous;
    sums.revenue += revenue.value;
    sums.previousRevenue += revenue.previous;
  }
  t.ok(sums.visitors > 0 && sums.revenue > 0, 'the fixture has visitors and revenue in the window');
  const totalVisitors = cell(page.body, 'data-totals', 'chatbots.visitors');
  const totalRevenue = cell(page.body, 'data-totals', 'chatbots.revenue_after_chat');
  t.same([totalVisitors.value, totalVisitors.previous], [sums.visitors, sums.previousVisitors], 'visitors: the sums');
  t.equal(totalRevenue.value, Math.round(sums.revenue * 100) / 100, 'revenue: the sum');
  t.equal(totalRevenue.previous, Math.round(sums.previousRevenue * 100) / 100, 'previous revenue: the sum');
  t.ok(page.body.indexOf('data-totals') < page.body.indexOf(`data-chatbot="${IDS.botA}"`), 'the totals come first');
});
