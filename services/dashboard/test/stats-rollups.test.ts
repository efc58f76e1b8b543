/**
 * The statistics rollups (clickhouse/migrations/0002_stats_rollups.sql, 0003) under what
 * happens to them in operation, against the oracle: batches inserted in order with one replayed
 * (same insert_deduplication_token), a rollup emptied and rebuilt with rebuildStatsRollups
 * (`npm run cli -- rollups:rebuild`), and events inserted out of order, then rebuilt.
 */
import t from 'tap';
import type { StoredEvent } from '@chatlytics/events';
import { rebuildStatsRollups, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { createRng, generateEvents, parseChTime } from '@chatlytics/testkit';
import { createEventStatsRepository } from '../src/stats/event-stats-repository.js';
import { daysWindow } from '../src/stats/timeframe.js';
import { openClickHouse } from './stats-fixtures.js';
import { oracleEngagement, oracleInsights, oraclePopupMetrics, oraclePurchases } from './stats-oracle.js';

const NOW = Date.parse('2026-05-20T12:34:56.789Z');
const TIMEFRAMES = [1, 7, 30];

function chatbotEvents(seed: number): { bot: string; events: StoredEvent[] } {
  const bot = createRng(seed * 104_729).uuid();
  const events = generateEvents({ seed, now: NOW, chatbotId: bot, otherChatbotIds: [], boundaryDays: TIMEFRAMES, users: 120 })
    .filter((e) => e.chatbot_id === bot);
  return { bot, events: events.sort((a, b) => parseChTime(a.received_at) - parseChTime(b.received_at)) };
}

/** What the rollups answer and what the oracle says, for every statistic and window. */
async function compare(engine: ClickHouseEngine, bot: string, events: readonly StoredEvent[]) {
  const repo = createEventStatsRepository(engine);
  const actual: unknown[] = [];
  const expected: unknown[] = [];
  for (const days of TIMEFRAMES) {
    const w = daysWindow(days, new Date(NOW));
    const [from, to] = [w.from.getTime(), w.to.getTime()];
    const e = oracleEngagement(events, bot, from, to);
    actual.push(await repo.engagement(bot, w));
    expected.push({ total_users: e.total_users, total_users_approached: e.total_users_approached,
      total_users_opened: e.total_users_opened, total_users_chatted: e.total_users_chatted });
    const popup = await repo.popupMetrics(bot, w);
    const o = oraclePopupMetrics(events, bot, from, to);
    actual.push({ rows: popup.rows, total: popup.conversations.total, from_popup: popup.conversations.from_popup });
    expected.push({ rows: o.metrics.map(({ open_rate: _, ...r }) => r), total: o.conversations.total, from_popup: o.conversations.from_popup });
    const buy = await repo.purchases(bot, w);
    const ab = await repo.abTest(bot, w);
    const p = oraclePurchases(events, bot, from, to, true) as Record<string, number> & { ab_test: Record<string, { visitors: number; orders: number; purchasers: number }> };
    actual.push([buy.total_users, buy.total_users_chatted, buy.total_users_purchased, buy.total_users_chatted_purchased,
      ab.control.visitors, ab.control.orders, ab.control.purchasers, ab.test.visitors, ab.test.orders, ab.test.purchasers]);
    expected.push([p.total_users, p.total_users_chatted, p.total_users_purchased, p.total_users_chatted_purchased,
      p.ab_test.control.visitors, p.ab_test.control.orders, p.ab_test.control.purchasers,
      p.ab_test.test.visitors, p.ab_test.test.orders, p.ab_test.test.purchasers]);
    const i = oracleInsights([], events, bot, from, to, '');
    actual.push(await repo.insightsEvents(bot, w));
    expected.push({ total_click_throughs: i.total_click_throughs, likes: i.reactions.likes, dislikes: i.reactions.dislikes });
  }
  return { actual, expected };
}

const ch = await openClickHouse();
t.teardown(() => ch.close());
const engine = ch.embedded;
const first = chatbotEvents(1);
const second = chatbotEvents(2);

t.test('batches in order, one replayed with its dedup token: every statistic equals the oracle', async (t) => {
  const batches = Array.from({ length: Math.ceil(first.events.length / 200) }, (_, i) => first.events.slice(i * 200, (i + 1) * 200));
  t.ok(batches.length > 3, 'several batches');
  for (const [i, batch] of batches.entries()) await engine.insert('events', batch, { dedupToken: `rollups-test-${i}` });
  await engine.insert('events', batches[2], { dedupToken: 'rollups-test-2' });
  const { actual, expected } = await compare(engine, first.bot, first.events);
  t.same(actual, expected);
});

t.test('a rollup emptied: the statistics change; rebuilt from events: equal again', async (t) => {
  await engine.command('TRUNCATE TABLE stats_hourly_tokens');
  const truncated = await compare(engine, first.bot, first.events);
  t.notSame(truncated.actual, truncated.expected, 'the statistics read the rollup');
  const result = await rebuildStatsRollups(engine);
  t.equal(result.events, first.events.length, 'every event copy classified once');
  t.ok(result.tables.includes('stats_hourly_tokens'));
  const rebuilt = await compare(engine, first.bot, first.events);
  t.same(rebuilt.actual, rebuilt.expected);
});

t.test('events inserted newest first, then rebuilt: equal to the oracle', async (t) => {
  const reversed = [...second.events].reverse();
  for (let i = 0; i < reversed.length; i += 150) await engine.insert('events', reversed.slice(i, i + 150));
  await rebuildStatsRollups(engine);
  for (const { bot, events } of [first, second]) {
    const { actual, expected } = await compare(engine, bot, events);
    t.same(actual, expected, `chatbot ${bot}`);
  }
  // A second rebuild inserts the same blocks again: block deduplication must not drop them.
  await rebuildStatsRollups(engine);
  const again = await compare(engine, second.bot, second.events);
  t.same(again.actual, again.expected, 'rebuilt twice');
});
