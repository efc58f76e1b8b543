/**
 * Property test: for many seeds, every statistic computed by the real engines equals the
 * oracle (a plain TypeScript reading of the statistics definitions in services/dashboard/docs/statistics.md) over the same generated data.
 * ClickHouse: the embedded engine AND the server client through the HTTP bridge.
 * PostgreSQL: PGlite, and a server when DATABASE_URL is set.
 * STATS_SEEDS=200 runs more seeds (the default keeps the suite to seconds); the server
 * client, whose SQL is the same, is compared on the first SERVER_SEEDS of them.
 */
import t from 'tap';
import { TRACKED_EVENTS, type StoredEvent } from '@chatlytics/events';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng, generateConversations, generateEvents, type GeneratedConversation } from '@chatlytics/testkit';
import { createStatsRepository } from '../src/stats/readers.js';
import { daysWindow, parseInsightsTimeframe, type StatsWindow } from '../src/stats/window.js';
import { sampleRatioMismatch, twoProportionPValue, wilsonInterval } from '../src/stats/ab-significance.js';
import { round2 } from '../src/stats/numbers.js';
import { insertEvents, openClickHouse, seedPostgres, type SeedChatbot } from './stats-fixtures.js';
import { hourKey, insightsAnalysis, oracleEngagement, oracleInsights, oracleOverview, oraclePopupMetrics, oraclePurchases, oracleTimeseries, windowEvents } from './stats-oracle.js';
import { timeseries, utcHours } from '../src/stats/statistics/timeseries.js';
import { NO_SEGMENT } from '../src/stats/segment.js';
import type { StatsSources } from '../src/stats/statistic.js';

const SEED_COUNT = Number(process.env.STATS_SEEDS ?? 8);
const SERVER_SEEDS = 3;
const NOW = Date.parse('2026-05-20T12:34:56.789Z');
// Window lengths in days; the generator also puts events exactly on these windows' ends.
const TIMEFRAMES = [1, 7, 30];
const APP_URL = 'https://app.example.test';

interface Scenario { seed: number; bot: SeedChatbot; others: SeedChatbot[]; events: StoredEvent[]; convos: GeneratedConversation[] }

function scenario(seed: number): Scenario {
  const rng = createRng(seed * 7919);
  const accountId = rng.uuid();
  // Odd seeds run the A/B block; one other chatbot shares the account, one belongs to another.
  const bot = { id: rng.uuid(), accountId, abTestEnabled: seed % 2 === 1 };
  const others = [{ id: rng.uuid(), accountId, abTestEnabled: true }, { id: rng.uuid(), accountId: rng.uuid(), abTestEnabled: false }];
  const common = { seed, now: NOW, chatbotId: bot.id, otherChatbotIds: others.map((o) => o.id) };
  return { seed, bot, others, events: generateEvents({ ...common, boundaryDays: TIMEFRAMES }), convos: generateConversations(common) };
}

/** The ab_test block the implementation must return, from the oracle's raw group figures. */
function expectedAb(ab: Record<'control' | 'test', { visitors: number; orders: number; purchasers: number; conversion_rate: number; aov: number; arpu: number }>) {
  const group = (g: (typeof ab)['control']) => {
    const ci = wilsonInterval(g.purchasers, g.visitors);
    return {
      visitors: g.visitors, orders: g.orders, conversion_rate: g.conversion_rate, aov: g.aov, arpu: g.arpu,
      conversion_rate_ci95: { lower: round2(ci.lower * 100), upper: round2(ci.upper * 100) },
    };
  };
  const srm = sampleRatioMismatch(ab.control.visitors, ab.test.visitors);
  return {
    control: group(ab.control),
    test: group(ab.test),
    comparison: {
      p_value: Number(twoProportionPValue(ab.control.purchasers, ab.control.visitors, ab.test.purchasers, ab.test.visitors).toFixed(6)),
      sample_ratio_mismatch: srm.mismatch,
      sample_ratio_p_value: Number(srm.pValue.toFixed(6)),
    },
  };
}

function expectedPurchases(s: Scenario, w: StatsWindow) {
  const raw = oraclePurchases(s.events, s.bot.id, w.from.getTime(), w.to.getTime(), s.bot.abTestEnabled);
  if (!raw.ab_test) return raw;
  return { ...raw, ab_test: expectedAb(raw.ab_test as Parameters<typeof expectedAb>[0]) };
}

const scenarios = Array.from({ length: SEED_COUNT }, (_, i) => scenario(1 + i));
const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, scenarios.flatMap((s) => s.events));

t.test('the generated data exercises every rule', async (t) => {
  const all = scenarios.flatMap((s) => s.events);
  const ids = all.map((e) => e.event_id);
  t.ok(new Set(ids).size < ids.length, 'retried beacons: duplicate event_ids');
  t.ok(all.some((e) => e.event === 'purchase' && e.total_value_base === null), 'unknown currencies');
  t.ok(all.some((e) => e.chatbot_id === ''), 'events without chatbot');
  t.ok(all.some((e) => e.ab_group === 'control') && all.some((e) => e.ab_group === 'test'), 'both A/B groups');
  const orders = all.filter((e) => e.event === 'purchase' && e.order_num !== '').map((e) => `${e.chatbot_id}/${e.order_num}`);
  t.ok(new Set(orders).size < orders.length, 'repeated order numbers');
  const w = daysWindow(7, new Date(NOW));
  const some = scenarios.some((s) => {
    const p = oraclePurchases(s.events, s.bot.id, w.from.getTime(), w.to.getTime(), false);
    return (p.total_users_chatted_purchased as number) > 0 && (p.total_users_purchased as number) > (p.total_users_chatted_purchased as number);
  });
  t.ok(some, 'purchases both after chat and without chat');
  // Bots: rows on the asked chatbot, on visitors' tokens too, and a purchase claiming an order
  // number a visitor also uses; left in, they would change the numbers.
  t.ok(all.some((e) => e.is_bot === true) && all.some((e) => e.is_bot === false), 'bot and visitor rows');
  const humanTokens = new Set(all.filter((e) => !e.is_bot).map((e) => e.token));
  t.ok(all.some((e) => e.is_bot && humanTokens.has(e.token)), 'bot rows on a visitor\'s token');
  const humanOrders = new Set(all.filter((e) => !e.is_bot && e.event === 'purchase' && e.order_num !== '').map((e) => `${e.chatbot_id}/${e.order_num}`));
  t.ok(all.some((e) => e.is_bot && e.event === 'purchase' && humanOrders.has(`${e.chatbot_id}/${e.order_num}`)), 'a bot purchase with a visitor\'s order number');
  const unflagged = (s: Scenario) => s.events.map((e) => ({ ...e, is_bot: false }));
  const changed = (name: string, f: (events: StoredEvent[], s: Scenario) => unknown) =>
    scenarios.some((s) => JSON.stringify(f(s.events, s)) !== JSON.stringify(f(unflagged(s), s))) || t.fail(`bots never change ${name}`);
  const [from, to] = [w.from.getTime(), w.to.getTime()];
  changed('engagement', (ev, s) => oracleEngagement(ev, s.bot.id, from, to));
  changed('popup-metrics', (ev, s) => oraclePopupMetrics(ev, s.bot.id, from, to));
  changed('purchases', (ev, s) => oraclePurchases(ev, s.bot.id, from, to, true));
  changed('insights', (ev, s) => oracleInsights(s.convos, ev, s.bot.id, from, to, APP_URL));
});

for (const variant of databaseVariants()) {
  t.test(`PostgreSQL ${variant.name}`, { skip: variant.skip }, async (t) => {
    const pg = await variant.open();
    t.teardown(() => pg.destroy());
    await seedPostgres(pg.postgres.db, scenarios.flatMap((s) => [s.bot, ...s.others]), scenarios.flatMap((s) => s.convos));

    for (const [engineName, engine] of [['embedded', ch.embedded], ['server via HTTP bridge', ch.server]] as const) {
      // The PostgreSQL half does not depend on the ClickHouse engine: checked once per database.
      const checkPostgres = engineName === 'embedded';
      t.test(`ClickHouse ${engineName}`, async (t) => {
        const repo = createStatsRepository({ clickhouse: engine, db: pg.postgres.db, appUrl: APP_URL });
        for (const s of checkPostgres ? scenarios : scenarios.slice(0, SERVER_SEEDS)) {
          for (const days of TIMEFRAMES) {
            const w = daysWindow(days, new Date(NOW));
            const [from, to] = [w.from.getTime(), w.to.getTime()];
            const at = `seed ${s.seed}, ${days} day(s)`;
            t.same(await repo.engagement(s.bot.id, w), oracleEngagement(s.events, s.bot.id, from, to), `engagement, ${at}`);
            t.same(await repo.popupMetrics(s.bot.id, w), oraclePopupMetrics(s.events, s.bot.id, from, to), `popup-metrics, ${at}`);
            // Both shapes on every scenario: with the A/B block and the funnel alone (both stats/purchases.sql).
            for (const bot of [s.bot, { ...s.bot, abTestEnabled: !s.bot.abTestEnabled }]) {
              t.same(await repo.purchases(bot, w), expectedPurchases({ ...s, bot }, w), `purchases, abTestEnabled ${bot.abTestEnabled}, ${at}`);
            }
            const { days: series } = await repo.timeseries(s.bot.id, w);
            const expectedDay = oracleTimeseries(s.events, s.bot.id, from, to);
            t.same(series, series.map((d) => ({ date: d.date, ...expectedDay(d.date) })), `timeseries, ${at}`);
            if (days <= 7) {
              // bucket=hour: every hour the window touches, each as the oracle counts it by hour.
              const ctx = { chatbot: { id: s.bot.id, abTestEnabled: false }, window: w, segment: NO_SEGMENT, extra: { bucket: 'hour' as const } };
              const { hours = [] } = timeseries.present(await timeseries.read({ clickhouse: engine } as StatsSources, ctx), ctx);
              const expectedHour = oracleTimeseries(s.events, s.bot.id, from, to, hourKey);
              t.same(hours.map((h) => h.hour), utcHours(w), `timeseries by hour: every hour, ${at}`);
              t.same(hours, hours.map((h) => ({ hour: h.hour, ...expectedHour(h.hour) })), `timeseries by hour, ${at}`);
            }
            t.same(insightsAnalysis(await repo.conversationInsights(s.bot.id, w)), oracleInsights(s.convos, s.events, s.bot.id, from, to, APP_URL), `insights, ${at}`);
            const counted = windowEvents(s.events, s.bot.id, from, to);
            t.same(await repo.eventKinds(s.bot.id, w), { kinds: TRACKED_EVENTS.map((event) => ({ event, events: counted.filter((e) => e.event === event).length })) }, `event-kinds, ${at}`);
            if (checkPostgres) t.same(await repo.overview(s.bot.id, w), oracleOverview(s.convos, s.bot.id, from, to), `overview, ${at}`);
          }
          // A parsed insights timeframe (calendar months) reaches past the generated history.
          const parsed = parseInsightsTimeframe('2 months', new Date(NOW));
          if (!parsed.ok) throw new Error(parsed.message);
          const w = parsed.window;
          t.same(insightsAnalysis(await repo.conversationInsights(s.bot.id, w)),
            oracleInsights(s.convos, s.events, s.bot.id, w.from.getTime(), w.to.getTime(), APP_URL), `insights, seed ${s.seed}, 2 months`);
        }
      });
    }

    t.test('a chatbot without any data: every number 0, every list empty', async (t) => {
      const repo = createStatsRepository({ clickhouse: ch.embedded, db: pg.postgres.db, appUrl: APP_URL });
      const empty = { id: createRng(42).uuid(), accountId: createRng(43).uuid(), abTestEnabled: true };
      const w = daysWindow(365, new Date(NOW));
      const [from, to] = [w.from.getTime(), w.to.getTime()];
      t.same(await repo.engagement(empty.id, w), oracleEngagement([], empty.id, from, to));
      t.same(await repo.engagement(empty.id, w), {
        total_users: 0, total_users_approached: 0, total_users_opened: 0, total_users_chatted: 0,
        approached_ratio: 0, opened_ratio: 0, chatted_ratio: 0,
      });
      t.same(await repo.popupMetrics(empty.id, w), { metrics: [], conversations: { total: 0, from_popup: 0, from_chat_button: 0, popup_ratio: 0 } });
      const purchases = await repo.purchases(empty, w);
      t.same(purchases, expectedPurchases({ seed: 0, bot: empty, others: [], events: [], convos: [] }, w));
      t.equal((purchases as { aov_with_chat: number }).aov_with_chat, 0);
      t.same(await repo.purchases({ ...empty, abTestEnabled: false }, w), expectedPurchases({ seed: 0, bot: { ...empty, abTestEnabled: false }, others: [], events: [], convos: [] }, w));
      t.same(await repo.overview(empty.id, w), { total_conversations: 0, total_ai_messages: 0, saved_hours: '0.00' });
      const emptyInsights = await repo.conversationInsights(empty.id, w);
      t.same(insightsAnalysis(emptyInsights), oracleInsights([], [], empty.id, from, to, APP_URL));
      t.same(emptyInsights.missing_information_cost, { abandoned_carts: 0, abandoned_value: 0, items: [] }, 'nothing abandoned');
    });
  });
}
