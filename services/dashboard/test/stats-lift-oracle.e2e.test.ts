/**
 * The lift statistic against its oracle: the definition ("lift" in docs/statistics.md) read in
 * plain TypeScript over the same seeded events, with its own interval arithmetic (Wilson and
 * Newcombe written out again, Student's t by numerical integration of its density, not the
 * implementation's incomplete beta), compared with the engine on the embedded ClickHouse and
 * through the server client. Data with a known lift (held-out visitors lose most purchases),
 * with none, and a split that does not match the configured share (the sample-ratio check fires).
 */
import t from 'tap';
import { isOrderProblem, refundsOfOrder, toStoredOrder, type OrderBody, type StoredEvent, type StoredOrder, type StoredRefund } from '@chatlytics/events';
import { createRng, generateEvents, parseChTime } from '@chatlytics/testkit';
import type { Database } from '@chatlytics/postgres';
import { createStatsRepository } from '../src/stats/readers.js';
import { daysWindow } from '../src/stats/window.js';
import { countedPurchases, windowEvents } from './stats-oracle.js';
import { latestStates, netEur } from './stats-orders-oracle.js';
import { insertEvents, openClickHouse } from './stats-fixtures.js';

const NOW = Date.parse('2026-05-20T12:34:56.789Z');
const KEY = 'lift-oracle-key-0000000000000000';

// ---- The oracle's own arithmetic ----------------------------------------------------------
const Z = 1.959963984540054;
const r2 = (x: number) => {
  const s = Number((Math.abs(x) * 100).toPrecision(15));
  return (x < 0 ? -Math.round(s) / 100 : Math.round(s) / 100) || 0;
};
const wilson = (x: number, n: number) => {
  const p = x / n;
  const c = (p + (Z * Z) / (2 * n)) / (1 + (Z * Z) / n);
  const h = (Z / (1 + (Z * Z) / n)) * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n));
  return [Math.max(0, c - h), Math.min(1, c + h)];
};
/** P(|T| ≥ t): 1 − 2∫₀ᵗ f(x) dx, Simpson's rule on the t density (Γ ratio by log-gamma from Stirling's series). */
const lgamma = (x: number): number => (x < 7 ? lgamma(x + 1) - Math.log(x)
  : (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * x) - 1 / (360 * x ** 3) + 1 / (1260 * x ** 5));
function tTail(tv: number, df: number): number {
  const c = Math.exp(lgamma((df + 1) / 2) - lgamma(df / 2)) / Math.sqrt(df * Math.PI);
  const f = (x: number) => c * (1 + (x * x) / df) ** (-(df + 1) / 2);
  const n = 20_000;
  const h = Math.abs(tv) / n;
  let s = f(0) + f(Math.abs(tv));
  for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * f(i * h);
  return Math.max(0, 1 - (2 * s * h) / 3);
}
const tCrit = (df: number) => {
  let lo = 0;
  let hi = 50;
  for (let i = 0; i < 60; i++) { const m = (lo + hi) / 2; if (tTail(m, df) > 0.05) lo = m; else hi = m; }
  return (lo + hi) / 2;
};
const normalTail = (z: number) => {
  // Abramowitz–Stegun 7.1.26 is too coarse for 6 decimals: integrate the density instead.
  const a = Math.abs(z);
  const n = 20_000;
  const h = a / n;
  const f = (x: number) => Math.exp(-x * x / 2) / Math.sqrt(2 * Math.PI);
  let s = f(0) + f(a);
  for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * f(i * h);
  return Math.max(0, 1 - 2 * (s * h) / 3);
};

interface ShopOrders { orders: readonly StoredOrder[]; refunds: readonly StoredRefund[] }
interface ArmRows { visitors: number; buyers: number; orders: number; perVisitorRevenue: number[] }

/**
 * The purchases of W the arms count: the tracker's counted purchases, or under the revenue
 * source 'orders' the shop's orders placed in W in their latest state at their net EUR value.
 */
function purchasesOf(events: readonly StoredEvent[], chatbotId: string, from: number, to: number, shop?: ShopOrders) {
  if (shop) {
    return latestStates(shop.orders, chatbotId).filter((o) => parseChTime(o.placed_at) >= from && parseChTime(o.placed_at) <= to)
      .map((o) => ({ token: o.token, revenue: netEur(o, shop.refunds) }));
  }
  return countedPurchases(events, chatbotId, windowEvents(events, chatbotId, from, to)).map((p) => ({ token: p.token, revenue: p.row.total_value_base ?? 0 }));
}

function oracleLift(events: readonly StoredEvent[], chatbotId: string, from: number, to: number, holdoutPercent: number, shop?: ShopOrders) {
  const w = windowEvents(events, chatbotId, from, to);
  const v = new Set(w.filter((e) => e.event === 'visitor').map((e) => e.token));
  const seen = (arm: string) => new Set(w.filter((e) => e.row.holdout === arm).map((e) => e.token));
  const exposedRows = seen('exposed');
  const heldRows = seen('holdout');
  const arms = {
    exposed: new Set([...v].filter((tok) => exposedRows.has(tok) && !heldRows.has(tok))),
    holdout: new Set([...v].filter((tok) => heldRows.has(tok) && !exposedRows.has(tok))),
  };
  const P = purchasesOf(events, chatbotId, from, to, shop);
  const armRows = (set: Set<string>): ArmRows => {
    const byToken = new Map<string, number>();
    let count = 0;
    for (const p of P) if (set.has(p.token)) { count++; byToken.set(p.token, (byToken.get(p.token) ?? 0) + p.revenue); }
    return { visitors: set.size, buyers: byToken.size, orders: count, perVisitorRevenue: [...set].map((tok) => byToken.get(tok) ?? 0) };
  };
  const e = armRows(arms.exposed);
  const h = armRows(arms.holdout);
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const arm = (a: ArmRows) => ({
    visitors: a.visitors, buyers: a.buyers, conversion_rate: a.visitors ? r2((a.buyers / a.visitors) * 100) : 0, orders: a.orders,
    revenue: r2(sum(a.perVisitorRevenue)), revenue_per_visitor: a.visitors ? r2(sum(a.perVisitorRevenue) / a.visitors) : 0,
    aov: a.orders ? r2(sum(a.perVisitorRevenue) / a.orders) : 0,
  });
  // Conversion: Newcombe's method 10 over Wilson's intervals; pooled z-test.
  const p1 = e.buyers / e.visitors;
  const p2 = h.buyers / h.visitors;
  const [l1, u1] = wilson(e.buyers, e.visitors);
  const [l2, u2] = wilson(h.buyers, h.visitors);
  const pooled = (e.buyers + h.buyers) / (e.visitors + h.visitors);
  const zConv = (p1 - p2) / Math.sqrt(pooled * (1 - pooled) * (1 / e.visitors + 1 / h.visitors));
  // Revenue per visitor: Welch, variances in two passes over the per-visitor values.
  const mean = (xs: number[]) => sum(xs) / xs.length;
  const variance = (xs: number[]) => { const m = mean(xs); return sum(xs.map((x) => (x - m) ** 2)) / (xs.length - 1); };
  const ve = variance(e.perVisitorRevenue) / e.visitors;
  const vh = variance(h.perVisitorRevenue) / h.visitors;
  const d = mean(e.perVisitorRevenue) - mean(h.perVisitorRevenue);
  const se = Math.sqrt(ve + vh);
  const df = (ve + vh) ** 2 / (ve ** 2 / (e.visitors - 1) + vh ** 2 / (h.visitors - 1));
  const half = tCrit(df) * se;
  // Sample ratio: χ² against the configured share.
  const n = e.visitors + h.visitors;
  const share = holdoutPercent / 100;
  const chi2 = (e.visitors - n * (1 - share)) ** 2 / (n * (1 - share)) + (h.visitors - n * share) ** 2 / (n * share);
  const srmP = normalTail(Math.sqrt(chi2));
  const needed = (() => {
    const delta = d !== 0 ? d : 0.1 * mean(h.perVisitorRevenue);
    const total = (1.959963984540054 + 0.8416212335729143) ** 2 * (variance(e.perVisitorRevenue) / (1 - share) + variance(h.perVisitorRevenue) / share) / delta ** 2;
    return Math.max(0, Math.ceil(total) - n);
  })();
  return {
    attribution: shop ? { source: 'orders', window_days: 7 } : { source: 'tracker', window_days: null },
    holdout_percent: holdoutPercent,
    exposed: arm(e),
    holdout: arm(h),
    conversion_rate_difference: {
      value: r2((p1 - p2) * 100),
      ci95: { lower: r2((p1 - p2 - Math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)) * 100), upper: r2((p1 - p2 + Math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)) * 100) },
      p_value: normalTail(zConv),
    },
    revenue_per_visitor_difference: { value: r2(d), ci95: { lower: r2(d - half), upper: r2(d + half) }, p_value: tTail(d / se, df) },
    incremental_revenue: { value: r2(d * e.visitors), ci95: { lower: r2((d - half) * e.visitors), upper: r2((d + half) * e.visitors) } },
    sample_ratio_mismatch: srmP < 0.001,
    sample_ratio_p_value: srmP,
    visitors_needed: needed,
  };
}

// ---- Comparison ---------------------------------------------------------------------------
type Body = ReturnType<typeof oracleLift>;
/**
 * Counts, sums and rates exactly; the numbers computed by two independent numerical methods
 * (intervals: one cent or 0.01 point; p-values: 1e-5; visitors needed: 0.1 %) within what the
 * two methods' last digits allow.
 */
function compare(t: Tap, actual: Body, expected: Body, at: string) {
  t.same({ ...actual, conversion_rate_difference: undefined, revenue_per_visitor_difference: undefined, incremental_revenue: undefined, sample_ratio_p_value: undefined, visitors_needed: undefined },
    { ...expected, conversion_rate_difference: undefined, revenue_per_visitor_difference: undefined, incremental_revenue: undefined, sample_ratio_p_value: undefined, visitors_needed: undefined }, `arms and the sample-ratio verdict, ${at}`);
  const near = (a: number, b: number, tol: number, what: string) => t.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs oracle ${b}, ${at}`);
  for (const k of ['conversion_rate_difference', 'revenue_per_visitor_difference', 'incremental_revenue'] as const) {
    near(actual[k].value, expected[k].value, 1e-9, `${k}.value`);
    near(actual[k].ci95.lower, expected[k].ci95.lower, 0.011, `${k}.lower`);
    near(actual[k].ci95.upper, expected[k].ci95.upper, 0.011, `${k}.upper`);
  }
  near(actual.conversion_rate_difference.p_value, expected.conversion_rate_difference.p_value, 1e-5, 'conversion p');
  near(actual.revenue_per_visitor_difference.p_value, expected.revenue_per_visitor_difference.p_value, 1e-5, 'revenue p');
  near(actual.sample_ratio_p_value, expected.sample_ratio_p_value, 1e-5, 'sample-ratio p');
  near(actual.visitors_needed ?? -1, expected.visitors_needed, Math.max(2, expected.visitors_needed * 0.001), 'visitors needed');
}
type Tap = { same(a: unknown, b: unknown, m: string): unknown; ok(v: boolean, m: string): unknown };

const rng = createRng(6161);
const bots = { lift: rng.uuid(), none: rng.uuid(), lost: rng.uuid(), other: rng.uuid() };
const common = { now: NOW, otherChatbotIds: [bots.other], users: 3000, spanDays: 20 };
const liftEvents = generateEvents({ ...common, seed: 61, chatbotId: bots.lift, holdout: { percent: 20, key: KEY, dropPurchase: 0.9 } });
const noneEvents = generateEvents({ ...common, seed: 62, chatbotId: bots.none, holdout: { percent: 20, key: KEY } });
// A widget that loses a third of the held-out visitors' events (as when it fails to load for
// them, so they never send a visitor event): the split in the data is no longer 80/20.
const lostEvents = generateEvents({ ...common, seed: 63, chatbotId: bots.lost, holdout: { percent: 20, key: KEY } })
  .filter((e) => !(e.chatbot_id === bots.lost && e.holdout === 'holdout' && e.token.charCodeAt(4) % 3 === 0));

/**
 * The shop's orders of the lift chatbot's visitors (revenue source 'orders'): exposed visitors
 * order four times as often as held-out ones (a known lift); some orders are reported again
 * later (resent, partly refunded, cancelled), some in another currency, some with a token the
 * tracker never saw or none.
 */
function shopOrders(events: readonly StoredEvent[], chatbotId: string): ShopOrders {
  const orng = createRng(6162);
  const visits = new Map<string, { at: number; arm: string }>();
  for (const e of events) if (e.chatbot_id === chatbotId && e.event === 'visitor' && !visits.has(e.token)) visits.set(e.token, { at: parseChTime(e.received_at), arm: e.holdout ?? '' });
  const orders: StoredOrder[] = [];
  const refunds: StoredRefund[] = [];
  const report = (body: OrderBody) => {
    const o = toStoredOrder(chatbotId, body, 'api', new Date(NOW));
    if (isOrderProblem(o)) throw new Error(`${o.field}: ${o.message}`);
    orders.push(o);
    refunds.push(...refundsOfOrder(o));
  };
  let n = 0;
  for (const [token, v] of visits) {
    if (!orng.chance(v.arm === 'holdout' ? 0.04 : 0.16)) continue;
    const placed = Math.min(NOW, v.at + orng.int(60_000, 3 * 86_400_000));
    const body: OrderBody = {
      order_id: `L-${n++}`, token, placed_at: new Date(placed).toISOString(), currency: orng.pick(['EUR', 'EUR', 'EUR', 'USD', 'XXX']),
      items: [{ item_id: `p${orng.int(1, 9)}`, quantity: orng.int(1, 2), value: orng.int(500, 15_000) / 100 }], status: 'paid',
    };
    report(body);
    if (orng.chance(0.2)) report(body);
    if (orng.chance(0.15)) report({ ...body, refunds: [{ refund_id: `${body.order_id}-r`, at: new Date(placed + 1000).toISOString(), amount: orng.int(100, 400) / 100 }] });
    if (orng.chance(0.1)) report({ ...body, status: 'cancelled' });
  }
  for (const token of ['tok_never_tracked', undefined]) {
    report({ order_id: `L-${n++}`, token, placed_at: new Date(NOW - 86_400_000).toISOString(), currency: 'EUR', items: [{ item_id: 'x', quantity: 1, value: 99 }], status: 'paid' });
  }
  return { orders, refunds };
}
const shop = shopOrders(liftEvents, bots.lift);

const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, [...liftEvents, ...noneEvents, ...lostEvents]);
await ch.embedded.insert('orders', shop.orders);
await ch.embedded.insert('order_refunds', shop.refunds);

for (const [engineName, engine] of [['embedded', ch.embedded], ['server via HTTP bridge', ch.server]] as const) {
  t.test(`ClickHouse ${engineName}`, async (t) => {
    // The lift statistic reads ClickHouse alone.
    const repo = createStatsRepository({ clickhouse: engine, db: undefined as unknown as Database, appUrl: 'https://app.example.test' });
    for (const days of [7, 14]) {
      const w = daysWindow(days, new Date(NOW));
      const [from, to] = [w.from.getTime(), w.to.getTime()];
      const known = await repo.lift({ id: bots.lift, abTestEnabled: false, holdoutPercent: 20 }, w);
      compare(t, known as Body, oracleLift(liftEvents, bots.lift, from, to, 20), `known lift, ${days} days`);
      t.ok(known.incremental_revenue.ci95.lower > 0, `a known lift: the interval is above 0 (${JSON.stringify(known.incremental_revenue)})`);
      t.ok(known.conversion_rate_difference.ci95.lower > 0, 'and the conversion difference too');
      t.notOk(known.sample_ratio_mismatch, 'the split matches 20 %');

      const fromOrders = await repo.lift({ id: bots.lift, abTestEnabled: false, holdoutPercent: 20, revenueSource: 'orders', attributionWindowDays: 7 }, w);
      compare(t, fromOrders as Body, oracleLift(liftEvents, bots.lift, from, to, 20, shop), `known lift from the shop's orders, ${days} days`);
      t.ok(fromOrders.incremental_revenue.ci95.lower > 0, `the shop's orders show the lift too (${JSON.stringify(fromOrders.incremental_revenue)})`);
      t.not(fromOrders.exposed.revenue, known.exposed.revenue, 'and the revenue is the shop\'s, not the tracker\'s');

      const none = await repo.lift({ id: bots.none, abTestEnabled: false, holdoutPercent: 20 }, w);
      compare(t, none as Body, oracleLift(noneEvents, bots.none, from, to, 20), `no lift, ${days} days`);
      t.ok(none.incremental_revenue.ci95.lower < 0 && none.incremental_revenue.ci95.upper > 0, `no lift: the interval crosses 0 (${JSON.stringify(none.incremental_revenue)})`);

      // The same visitors against a configured 5 %: the split does not match it.
      const skewed = await repo.lift({ id: bots.none, abTestEnabled: false, holdoutPercent: 5 }, w);
      compare(t, skewed as Body, oracleLift(noneEvents, bots.none, from, to, 5), `skewed split, ${days} days`);
      t.ok(skewed.sample_ratio_mismatch, 'the sample-ratio check fires on a 80/20 split configured as 95/5');

      const lost = await repo.lift({ id: bots.lost, abTestEnabled: false, holdoutPercent: 20 }, w);
      compare(t, lost as Body, oracleLift(lostEvents, bots.lost, from, to, 20), `lost held-out visitors, ${days} days`);
      t.ok(lost.sample_ratio_mismatch, `the check fires when held-out visitors go missing (${lost.exposed.visitors} / ${lost.holdout.visitors}, p = ${lost.sample_ratio_p_value})`);
    }
  });
}

t.test('a chatbot without events: zeros, no interval, nothing to estimate', async (t) => {
  const repo = createStatsRepository({ clickhouse: ch.embedded, db: undefined as unknown as Database, appUrl: 'https://app.example.test' });
  const body = await repo.lift({ id: rng.uuid(), abTestEnabled: false, holdoutPercent: 10 }, daysWindow(7, new Date(NOW)));
  const zero = { visitors: 0, buyers: 0, conversion_rate: 0, orders: 0, revenue: 0, revenue_per_visitor: 0, aov: 0 };
  t.same(body, {
    attribution: { source: 'tracker', window_days: null }, holdout_percent: 10, exposed: zero, holdout: zero,
    conversion_rate_difference: { value: 0, ci95: { lower: 0, upper: 0 }, p_value: 1 },
    revenue_per_visitor_difference: { value: 0, ci95: { lower: 0, upper: 0 }, p_value: 1 },
    incremental_revenue: { value: 0, ci95: { lower: 0, upper: 0 } },
    sample_ratio_mismatch: false, sample_ratio_p_value: 1, visitors_needed: null,
  });
});
