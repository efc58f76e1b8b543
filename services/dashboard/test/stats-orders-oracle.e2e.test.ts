/**
 * Property test of the revenue source 'orders': for several seeds, the purchases statistic of
 * both ClickHouse engines (embedded, and the server client through the HTTP bridge) equals the
 * oracle (stats-orders-oracle.ts) over generated events and generated shop orders, resent and
 * reordered, with refunds and cancellations, and orders placed exactly on the attribution
 * window's edges.
 */
import t from 'tap';
import type { StoredEvent } from '@chatlytics/events';
import { chTime, createRng, generateEvents } from '@chatlytics/testkit';
import { sampleRatioMismatch, twoProportionPValue, wilsonInterval } from '../src/stats/ab-significance.js';
import { round2 } from '../src/stats/numbers.js';
import { createStatsRepository } from '../src/stats/readers.js';
import { daysWindow } from '../src/stats/window.js';
import { insertEvents, openClickHouse } from './stats-fixtures.js';
import { latestStates, oracleOrderDays, oraclePurchasesFromOrders } from './stats-orders-oracle.js';
import { DAY, insertOrders, iso, NOW, ordersScenario, stored, TIMEFRAMES, type Scenario } from './stats-orders-scenario.js';

const SEED_COUNT = Number(process.env.STATS_SEEDS ?? 6);

function expectedAb(ab: Record<'control' | 'test', { visitors: number; orders: number; purchasers: number; conversion_rate: number; aov: number; arpu: number }>) {
  const group = (g: (typeof ab)['control']) => {
    const ci = wilsonInterval(g.purchasers, g.visitors);
    return { visitors: g.visitors, orders: g.orders, conversion_rate: g.conversion_rate, aov: g.aov, arpu: g.arpu, conversion_rate_ci95: { lower: round2(ci.lower * 100), upper: round2(ci.upper * 100) } };
  };
  const srm = sampleRatioMismatch(ab.control.visitors, ab.test.visitors);
  return {
    control: group(ab.control), test: group(ab.test),
    comparison: {
      p_value: Number(twoProportionPValue(ab.control.purchasers, ab.control.visitors, ab.test.purchasers, ab.test.visitors).toFixed(6)),
      sample_ratio_mismatch: srm.mismatch, sample_ratio_p_value: Number(srm.pValue.toFixed(6)),
    },
  };
}

function expected(s: Scenario, from: number, to: number) {
  const raw = oraclePurchasesFromOrders(s.events, s.orders, s.refunds, s.bot.id, from, to, s.bot.windowDays, s.bot.abTestEnabled);
  return raw.ab_test ? { ...raw, ab_test: expectedAb(raw.ab_test as Parameters<typeof expectedAb>[0]) } : raw;
}

const scenarios = Array.from({ length: SEED_COUNT }, (_, i) => ordersScenario(1 + i));
const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, scenarios.flatMap((s) => s.events));
await insertOrders(ch.embedded, scenarios);

t.test('the orders are stored both ways: with their token id, and without it', async (t) => {
  const [{ known, unknown }] = await ch.embedded.query<{ known: string; unknown: string }>(
    "SELECT countIf(token_id != 0) AS known, countIf(token_id = 0 AND token != '') AS unknown FROM orders");
  t.ok(Number(known) > 0 && Number(unknown) > 0, `${known} with an id, ${unknown} to look up`);
});

t.test('the generated orders exercise every rule', async (t) => {
  t.ok(scenarios.every((s) => s.edges > 0), 'orders on the window\'s edges');
  const all = scenarios.flatMap((s) => s.orders);
  t.ok(all.some((o) => o.status === 'cancelled') && all.some((o) => o.status === 'refunded'), 'cancellations and full refunds');
  t.ok(all.some((o) => o.refund_ids.length > 1), 'several refunds in a state');
  t.ok(scenarios.some((s) => s.refunds.some((r) => r.source === 'shopify')), 'refunds reported alone');
  t.ok(all.some((o) => o.currency === 'XXX'), 'a currency without a rate');
  const w30 = daysWindow(30, new Date(NOW));
  t.ok(scenarios.some((s) => (expected(s, w30.from.getTime(), w30.to.getTime()).orders_direct as number) > 0), 'direct orders');
  t.ok(scenarios.some((s) => (expected(s, w30.from.getTime(), w30.to.getTime()).orders_direct as number) < (expected(s, w30.from.getTime(), w30.to.getTime()) as { total_users_chatted_purchased: number }).total_users_chatted_purchased), 'after-chat orders that are not direct');
  t.ok(all.some((o) => o.token === ''), 'orders without a token');
  const ids = all.map((o) => `${o.chatbot_id}/${o.order_id}`);
  t.ok(new Set(ids).size < ids.length, 'several reports per order');
  t.ok(scenarios.some((s) => latestStates(s.orders, s.bot.id).length < s.orders.filter((o) => o.chatbot_id === s.bot.id).length), 'resends and later states');
  const w = daysWindow(30, new Date(NOW));
  t.ok(scenarios.some((s) => {
    const p = expected(s, w.from.getTime(), w.to.getTime());
    return (p.total_users_chatted_purchased as number) > 0 && (p.total_users_purchased as number) > (p.total_users_chatted_purchased as number);
  }), 'orders both after chat and without');
});

for (const [engineName, engine] of [['embedded', ch.embedded], ['server via HTTP bridge', ch.server]] as const) {
  t.test(`purchases from orders equal the oracle: ClickHouse ${engineName}`, async (t) => {
    const repo = createStatsRepository({ clickhouse: engine, db: undefined as never, appUrl: 'https://app.example.test' });
    for (const s of scenarios) {
      for (const days of TIMEFRAMES) {
        const w = daysWindow(days, new Date(NOW));
        for (const ab of [s.bot.abTestEnabled, !s.bot.abTestEnabled]) {
          const bot = { id: s.bot.id, abTestEnabled: ab, revenueSource: 'orders' as const, attributionWindowDays: s.bot.windowDays };
          t.same(await repo.purchases(bot, w), expected({ ...s, bot: { ...s.bot, abTestEnabled: ab } }, w.from.getTime(), w.to.getTime()),
            `seed ${s.seed}, window ${s.bot.windowDays} d, ${days} day(s), A/B ${ab}`);
        }
        const bot = { id: s.bot.id, abTestEnabled: false, revenueSource: 'orders' as const, attributionWindowDays: s.bot.windowDays };
        const series = await repo.timeseries(bot, w);
        const byDay = oracleOrderDays(s.events, s.orders, s.refunds, s.bot.id, w.from.getTime(), w.to.getTime());
        t.same(series.attribution, { source: 'orders', window_days: s.bot.windowDays });
        t.same(series.days.map((d) => [d.date, d.purchases, d.revenue]), series.days.map((d) => [d.date, byDay.get(d.date)?.purchases ?? 0, byDay.get(d.date)?.revenue ?? 0]),
          `timeseries from orders, seed ${s.seed}, ${days} day(s)`);
        // sources: each token of V has one value, so its rows (and `other`) sum to the funnel's figures.
        const funnel = await repo.purchases(bot, w);
        const src = await repo.sources(bot, w, 'device');
        t.same(src.attribution, { source: 'orders', window_days: s.bot.windowDays });
        const all = [...src.rows, src.other];
        t.equal(all.reduce((n, r) => n + r.purchasers, 0), funnel.total_users_purchased, `sources' purchasers from orders, seed ${s.seed}, ${days} day(s)`);
        // Each row's revenue is rounded to cents: their sum is within half a cent per row.
        const revenue = all.reduce((n, r) => n + r.revenue, 0);
        t.ok(Math.abs(revenue - funnel.total_revenue_purchased) <= 0.005 * all.length + 1e-9, `sources' revenue from orders (${revenue} vs ${funnel.total_revenue_purchased}), seed ${s.seed}, ${days} day(s)`);
      }
    }
  });
}

t.test('a token with chats on both sides of the window: only a chat inside it makes the order after chat', async (t) => {
  const rng = createRng(77);
  const botId = rng.uuid();
  const token = 'tok_both-sides-1';
  const placed = NOW - 2 * DAY;
  const ev = (event: string, at: number, i: number): StoredEvent => ({
    ...generateEvents({ seed: 5, now: NOW, chatbotId: botId, otherChatbotIds: [] })[0],
    event_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, event, token, chatbot_id: botId, received_at: chTime(at), is_bot: false, ab_group: null, ab_test: false, order_num: '', items: [], total_value: 0, total_value_base: null,
  });
  // Chats 10 days before and 1 hour after; the window is 7 days: not after chat.
  await insertEvents(ch.embedded, [ev('visitor', placed - 10 * DAY - 1000, 1), ev('convo_started', placed - 10 * DAY, 2), ev('convo_started', placed + 3_600_000, 3)]);
  await ch.embedded.insert('orders', [stored(botId, { order_id: 'B-1', token, placed_at: iso(placed), currency: 'EUR', items: [{ item_id: 'x', quantity: 1, value: 50 }], status: 'paid' })]);
  const repo = createStatsRepository({ clickhouse: ch.embedded, db: undefined as never, appUrl: 'https://app.example.test' });
  const w = daysWindow(30, new Date(NOW));
  const bot = { id: botId, abTestEnabled: false, revenueSource: 'orders' as const, attributionWindowDays: 7 };
  t.match(await repo.purchases(bot, w), { total_users_purchased: 1, total_users_chatted_purchased: 0, total_revenue_purchased: 50, total_revenue_chatted_purchased: 0 });
  t.match(await repo.purchases({ ...bot, attributionWindowDays: 10 }, w), { total_users_chatted_purchased: 1, total_revenue_chatted_purchased: 50, attribution: { source: 'orders', window_days: 10 } }, 'a window reaching the earlier chat');
  t.match(await repo.purchases({ ...bot, revenueSource: 'tracker' }, w), { total_revenue_purchased: 0, attribution: { source: 'tracker', window_days: null } }, 'the tracker source ignores orders');
});
