/** The oracle's view of purchases and the daily series beside the repository's, for stats-sealed.test.ts. */
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { StoredEvent } from '@chatlytics/events';
import { round2, ratio } from '../src/stats/numbers.js';
import { readSealedRun, type EventStatsRepository, type PurchaseTotals } from '../src/stats/event-stats-repository.js';
import type { StatsWindow } from '../src/stats/timeframe.js';
import { oraclePurchases, oracleTimeseries } from './stats-oracle.js';

/** The purchases statistic's fields the oracle states, from the repository's raw totals (as repository.ts derives them). */
export async function purchasesOf(repo: EventStatsRepository, chatbotId: string, w: StatsWindow) {
  const p = await repo.purchases(chatbotId, w);
  const group = (g: 'control' | 'test') => ({ visitors: p.ab[g].visitors, orders: p.ab[g].orders, purchasers: p.ab[g].purchasers, revenue: round2(p.ab[g].revenue) });
  return { ...funnelFields(p), ab_test: { control: group('control'), test: group('test') } };
}

/** The same fields but the A/B block, from the funnel alone (purchaseFunnel: a chatbot without A/B test). */
export async function purchaseFunnelOf(repo: EventStatsRepository, chatbotId: string, w: StatsWindow) {
  return funnelFields(await repo.purchaseFunnel(chatbotId, w));
}

function funnelFields(p: PurchaseTotals) {
  return {
    total_users: p.total_users, total_users_chatted: p.total_users_chatted,
    total_users_purchased: p.total_users_purchased, total_users_chatted_purchased: p.total_users_chatted_purchased,
    total_revenue_purchased: round2(p.total_revenue_purchased), total_revenue_chatted_purchased: round2(p.total_revenue_chatted_purchased),
    aov_with_chat: ratio(p.total_revenue_chatted_purchased, p.orders_after_chat),
    aov_without_chat: ratio(p.revenue_other, p.orders - p.orders_after_chat),
  };
}

export function oraclePurchaseFields(events: StoredEvent[], chatbotId: string, w: StatsWindow) {
  const o = oraclePurchases(events, chatbotId, w.from.getTime(), w.to.getTime(), true);
  type Group = { visitors: number; orders: number; purchasers: number; revenue: number };
  const ab = o.ab_test as { control: Group; test: Group };
  const group = (g: Group) => ({ visitors: g.visitors, orders: g.orders, purchasers: g.purchasers, revenue: round2(g.revenue) });
  return {
    total_users: o.total_users, total_users_chatted: o.total_users_chatted,
    total_users_purchased: o.total_users_purchased, total_users_chatted_purchased: o.total_users_chatted_purchased,
    total_revenue_purchased: o.total_revenue_purchased, total_revenue_chatted_purchased: o.total_revenue_chatted_purchased,
    aov_with_chat: o.aov_with_chat, aov_without_chat: o.aov_without_chat,
    ab_test: { control: group(ab.control), test: group(ab.test) },
  };
}

/** Every UTC day of the window, as the repository's rows (days without a row: zeros) and as the oracle states them. */
export async function seriesOf(repo: EventStatsRepository, events: StoredEvent[], chatbotId: string, w: StatsWindow) {
  const rows = new Map((await repo.timeseries(chatbotId, w)).map((r) => [r.day, r]));
  const expected = oracleTimeseries(events, chatbotId, w.from.getTime(), w.to.getTime());
  const actual: unknown[] = [];
  const wanted: unknown[] = [];
  for (let t = Date.parse(w.from.toISOString().slice(0, 10)); t <= w.to.getTime(); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    const r = rows.get(day);
    actual.push({ day, visitors: r?.visitors ?? 0, conversations: r?.conversations ?? 0, purchases: r?.purchases ?? 0, revenue: round2(r?.revenue ?? 0) });
    wanted.push({ day, ...expected(day) });
  }
  return { actual, wanted };
}

/** Whether the repository reads `w` of this chatbot as a settled sealed run (sealed-hours.ts, settledRun). */
export async function isSettled(engine: ClickHouseEngine, chatbotId: string, w: StatsWindow) {
  return (await readSealedRun(engine, chatbotId, w))?.settled === true;
}

/** Whether `w`'s current sealed run of this chatbot is kept for purchases (migration 0090). */
export async function isKept(engine: ClickHouseEngine, chatbotId: string, w: StatsWindow) {
  const sealed = await readSealedRun(engine, chatbotId, w);
  if (!sealed) return false;
  const [{ n }] = await engine.query<{ n: string }>('SELECT count() AS n FROM sealed_runs WHERE chatbot_id = {c:String} AND run = {run:UInt64}',
    { c: chatbotId, run: sealed.run });
  return Number(n) > 0;
}
