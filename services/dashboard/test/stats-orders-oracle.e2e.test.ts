/**
 * Property test of the revenue source 'orders': for several seeds, the purchases statistic of
 * both ClickHouse engines (embedded, and the server client through the HTTP bridge) equals the
 * oracle (stats-orders-oracle.ts) over generated events and generated shop orders, resent and
 * reordered, with refunds and cancellations, and orders placed exactly on the attribution
 * window's edges.
 */
import t from 'tap';
import { isOrderProblem, toStoredOrder, toStoredRefund, type OrderBody, type StoredEvent, type StoredOrder, type StoredRefund } from '@chatlytics/events';
import { chTime, createRng, generateEvents, parseChTime, type Rng } from '@chatlytics/testkit';
import { sampleRatioMismatch, twoProportionPValue, wilsonInterval } from '../src/stats/ab-significance.js';
import { round2 } from '../src/stats/numbers.js';
import { createStatsRepository } from '../src/stats/readers.js';
import { daysWindow } from '../src/stats/window.js';
import { insertEvents, openClickHouse } from './stats-fixtures.js';
import { latestStates, oracleOrderDays, oraclePurchasesFromOrders } from './stats-orders-oracle.js';

const SEED_COUNT = Number(process.env.STATS_SEEDS ?? 6);
const NOW = Date.parse('2026-05-20T12:34:56.789Z');
const DAY = 86_400_000;
const TIMEFRAMES = [1, 7, 30];
const iso = (ms: number) => new Date(ms).toISOString();

interface Scenario { seed: number; bot: { id: string; abTestEnabled: boolean; windowDays: number }; events: StoredEvent[]; orders: StoredOrder[]; refunds: StoredRefund[]; edges: number }

function stored(chatbotId: string, body: OrderBody): StoredOrder {
  const s = toStoredOrder(chatbotId, body, 'api', new Date(NOW));
  if (isOrderProblem(s)) throw new Error(`${s.field}: ${s.message}`);
  return s;
}

function shuffle<T>(rng: Rng, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) { const j = rng.int(0, i); [xs[i], xs[j]] = [xs[j], xs[i]]; }
  return xs;
}

function scenario(seed: number): Scenario {
  const rng = createRng(seed * 104_729);
  const bot = { id: rng.uuid(), abTestEnabled: seed % 2 === 0, windowDays: rng.pick([1, 3, 7, 30]) };
  const other = rng.uuid();
  const events = generateEvents({ seed, now: NOW, chatbotId: bot.id, otherChatbotIds: [other], boundaryDays: TIMEFRAMES });
  const mine = events.filter((e) => e.chatbot_id === bot.id && !e.is_bot);
  const visitors = [...new Set(mine.filter((e) => e.event === 'visitor').map((e) => e.token))];
  const chats = mine.filter((e) => e.event === 'convo_started');
  const reports: StoredOrder[] = [];
  const refunds: StoredRefund[] = [];
  let n = 0;
  const order = (token: string | undefined, at: number, extra: Partial<OrderBody> = {}): OrderBody => ({
    order_id: `ORD-${seed}-${n++}`, token, placed_at: iso(at), currency: rng.pick(['EUR', 'EUR', 'USD', 'GBP', 'XXX']),
    items: Array.from({ length: rng.int(1, 3) }, (_, i) => ({ item_id: `p${rng.int(1, 20)}-${i}`, quantity: rng.int(1, 3), value: rng.int(100, 20_000) / 100 })),
    status: 'paid', ...extra,
  });
  const report = (body: OrderBody) => { reports.push(stored(bot.id, body)); return body; };
  // The window's edges, from real conversation starts: [at − window, at) holds the first and
  // the last, not the other two.
  let edges = 0;
  for (const c of chats.slice(0, 6)) {
    const at = parseChTime(c.received_at);
    for (const placed of [at + bot.windowDays * DAY, at + 1, at, at + bot.windowDays * DAY + 1]) {
      if (placed <= NOW) { report(order(c.token, placed)); edges++; }
    }
  }
  // Orders of visitors at random times, some unknown tokens and some without one; resent,
  // refunded (in the state and alone), cancelled, reported out of order.
  for (let i = 0; i < 40; i++) {
    const token = rng.chance(0.8) ? rng.pick(visitors) : rng.chance(0.5) ? `tok_unknown-${seed}-${i}` : undefined;
    const body = report(order(token, NOW - rng.int(0, 40 * DAY)));
    const placed = Date.parse(body.placed_at);
    if (rng.chance(0.3)) report(body);
    if (rng.chance(0.3)) {
      const refundsSoFar = [{ refund_id: `${body.order_id}-r1`, at: iso(placed + DAY), amount: rng.int(100, 5_000) / 100 }];
      report({ ...body, refunds: refundsSoFar });
      if (rng.chance(0.5)) report({ ...body, refunds: [...refundsSoFar, { refund_id: `${body.order_id}-r2`, at: iso(placed + 2 * DAY), amount: rng.int(100, 2_000) / 100 }] });
    }
    if (rng.chance(0.2)) {
      const alone = toStoredRefund(bot.id, { order_id: body.order_id, refund_id: `${body.order_id}-shop`, at: iso(placed + 3 * DAY), amount: rng.int(100, 3_000) / 100 }, 'shopify', new Date(NOW));
      if (isOrderProblem(alone)) throw new Error(alone.message);
      refunds.push(alone);
    }
    if (rng.chance(0.15)) report({ ...body, status: rng.pick(['cancelled', 'refunded'] as const) });
  }
  // Products clicked in the chat before some orders: one of the order's items or another, after
  // a chat or without one, inside the attribution span or before it.
  const template = mine[0];
  let k = 0;
  const click = (token: string, at: number, item: string | number, chat: boolean): StoredEvent[] => {
    const base = { ...template, token, is_bot: false, ab_group: null, ab_test: false, order_num: '', items: [], total_value: 0, total_value_base: null };
    const id = () => `00000000-0000-4000-9${String(seed).padStart(3, '0')}-${String(++k).padStart(12, '0')}`;
    const clickEv = { ...base, event_id: id(), event: 'click_through', received_at: chTime(at), data: JSON.stringify({ chatbot_id: bot.id, item_id: item }) };
    return chat ? [{ ...base, event_id: id(), event: 'convo_started', received_at: chTime(at - 60_000), data: JSON.stringify({ chatbot_id: bot.id }) }, clickEv] : [clickEv];
  };
  for (const o of reports.filter((r) => r.token !== '' && visitors.includes(r.token)).slice(0, 16)) {
    const placed = parseChTime(o.placed_at);
    const inSpan = placed - rng.int(2 * 60_000, Math.max(3 * 60_000, bot.windowDays * DAY - 60_000));
    const variant = rng.int(0, 3);
    if (variant === 0) events.push(...click(o.token, inSpan, o.item_ids[0], true));
    if (variant === 1) events.push(...click(o.token, inSpan, 'not-in-the-order', true));
    if (variant === 2) events.push(...click(o.token, placed - bot.windowDays * DAY - 120_000, o.item_ids[0], true));
    if (variant === 3) events.push(...click(o.token, inSpan, o.item_ids[0], false));
  }
  // Another chatbot's order with a visitor's token and an order id of ours: never counted.
  reports.push(stored(other, order(visitors[0], NOW - DAY, { order_id: `ORD-${seed}-0` })));
  for (const o of reports) refunds.push(...o.refund_ids.map((refund_id, i) => ({ chatbot_id: o.chatbot_id, order_id: o.order_id, refund_id, at: o.refund_ats[i], amount: o.refund_amounts[i], source: o.source, received_at: o.received_at })));
  return { seed, bot, events, orders: shuffle(rng, reports), refunds, edges };
}

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

const scenarios = Array.from({ length: SEED_COUNT }, (_, i) => scenario(1 + i));
const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, scenarios.flatMap((s) => s.events));
// Orders as the consumer stores them: with their token's id where token_ids has it (migration
// 0200), except every third, stored with 0 as when the order came ahead of its visitor's
// events: the statistics look those up when they read them. Both paths must give the oracle.
const idOf = new Map((await ch.embedded.query<{ chatbot_id: string; token: string; token_id: string }>(
  'SELECT chatbot_id, token, toString(min(token_id)) AS token_id FROM token_ids GROUP BY chatbot_id, token')).map((r) => [`${r.chatbot_id}\n${r.token}`, r.token_id]));
for (const s of scenarios) {
  await ch.embedded.insert('orders', s.orders.map((o, i) => ({ ...o, token_id: i % 3 === 0 ? '0' : idOf.get(`${o.chatbot_id}\n${o.token}`) ?? '0' })));
  await ch.embedded.insert('order_refunds', s.refunds);
}
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
