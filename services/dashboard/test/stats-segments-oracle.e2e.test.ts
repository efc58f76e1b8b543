/**
 * Property test of segments (services/dashboard/docs/statistics.md, "Segments", "sources"): for several
 * seeds, windows and filters, every windowed statistic computed by the real engines, filtered,
 * equals the statistics' oracle over the segment's tokens (stats-oracle-segments.ts), and the
 * sources statistic equals its oracle. ClickHouse: the embedded engine, and the server client
 * through the HTTP bridge on the first SERVER_SEEDS; PostgreSQL (overview): PGlite, and a
 * server when DATABASE_URL is set. STATS_SEEDS=N runs more seeds.
 */
import t from 'tap';
import type { StoredEvent } from '@chatlytics/events';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng, generateConversations, generateEvents, type GeneratedConversation } from '@chatlytics/testkit';
import { createStatsRepository } from '../src/stats/readers.js';
import { daysWindow } from '../src/stats/window.js';
import { insertEvents, openClickHouse, seedPostgres, type SeedChatbot } from './stats-fixtures.js';
import { oracleEngagement, oraclePopupMetrics, oraclePurchases, oracleTimeseries } from './stats-oracle.js';
import { oracleOverviewOf, oracleSegments, oracleSources, restrictTo, segmentTokens, type Filter } from './stats-oracle-segments.js';

const SEED_COUNT = Number(process.env.STATS_SEEDS ?? 4);
const SERVER_SEEDS = 1;
const NOW = Date.parse('2026-05-20T12:34:56.789Z');
const TIMEFRAMES = [1, 7, 30];
const APP_URL = 'https://app.example.test';

interface Scenario { seed: number; bot: SeedChatbot; others: SeedChatbot[]; events: StoredEvent[]; convos: GeneratedConversation[] }

function scenario(seed: number): Scenario {
  const rng = createRng(seed * 104_729);
  const accountId = rng.uuid();
  const bot = { id: rng.uuid(), accountId, abTestEnabled: seed % 2 === 1 };
  const others = [{ id: rng.uuid(), accountId, abTestEnabled: false }];
  // The first seed is a busier shop: more campaigns than the 50 rows sources shows.
  const common = { seed, now: NOW, chatbotId: bot.id, otherChatbotIds: others.map((o) => o.id), users: seed === 1 ? 400 : undefined };
  const events = generateEvents({ ...common, boundaryDays: TIMEFRAMES });
  // Conversations linked to the chatbot's visitors (one in five without a token), so a filtered overview has something to keep.
  const tokens = [...new Set(events.filter((e) => e.chatbot_id === bot.id && !e.is_bot).map((e) => e.token))];
  const convos = generateConversations(common).map((c, i) => (i % 5 === 4 ? c : { ...c, visitorToken: tokens[(i * 7) % tokens.length] }));
  return { seed, bot, others, events, convos };
}

/** Filters from the data itself (a frequent source, a campaign, a device, two at once) and one nothing matches. */
function filtersOf(s: Scenario, from: number, to: number): Filter[] {
  const segments = [...oracleSegments(s.events, s.bot.id, from, to).values()];
  const campaign = segments.find((g) => g.utm_campaign !== '')?.utm_campaign ?? 'camp-1';
  return [{ source: 'google' }, { utm_campaign: campaign }, { device: 'mobile' }, { source: 'direct', device: 'desktop' }, { source: 'nowhere.example' }];
}

const scenarios = Array.from({ length: SEED_COUNT }, (_, i) => scenario(1 + i));
const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, scenarios.flatMap((s) => s.events));

t.test('the generated data exercises the segment rules', async (t) => {
  const w = daysWindow(30, new Date(NOW));
  const [from, to] = [w.from.getTime(), w.to.getTime()];
  const s = scenarios[0];
  const campaigns = new Set([...oracleSegments(s.events, s.bot.id, from, to).values()].map((g) => g.utm_campaign));
  t.ok(campaigns.size > 50, `${campaigns.size} campaigns in 30 days: the other row is used`);
  // A token whose visits come from more than one source: its earliest decides.
  const sourcesOf = new Map<string, Set<string>>();
  for (const e of s.events) if (e.chatbot_id === s.bot.id && e.event === 'visitor') sourcesOf.set(e.token, (sourcesOf.get(e.token) ?? new Set()).add(e.source ?? ''));
  t.ok([...sourcesOf.values()].some((v) => v.size > 1), 'tokens with visits from several sources');
  const all = scenarios.flatMap((x) => x.events);
  t.ok(all.some((e) => e.source === 'Google') && all.some((e) => e.source === 'google'), 'sources differing only in case');
  t.ok(all.some((e) => e.event === 'visitor' && e.source === ''), 'visits without a segment');
  // Filtering must change every statistic somewhere, else the comparisons below could not fail.
  const f = { device: 'mobile' };
  const S = segmentTokens(s.events, s.bot.id, from, to, f);
  t.ok(S.size > 0 && S.size < oracleSegments(s.events, s.bot.id, from, to).size, 'a filter keeps some tokens, not all');
  t.not(JSON.stringify(oraclePurchases(restrictTo(s.events, S), s.bot.id, from, to, false)), JSON.stringify(oraclePurchases(s.events, s.bot.id, from, to, false)));
});

for (const variant of databaseVariants()) {
  t.test(`PostgreSQL ${variant.name}`, { skip: variant.skip }, async (t) => {
    const pg = await variant.open();
    t.teardown(() => pg.destroy());
    await seedPostgres(pg.postgres.db, scenarios.flatMap((s) => [s.bot, ...s.others]), scenarios.flatMap((s) => s.convos));

    for (const [engineName, engine] of [['embedded', ch.embedded], ['server via HTTP bridge', ch.server]] as const) {
      const checkPostgres = engineName === 'embedded';
      t.test(`ClickHouse ${engineName}`, async (t) => {
        const repo = createStatsRepository({ clickhouse: engine, db: pg.postgres.db, appUrl: APP_URL });
        for (const s of checkPostgres ? scenarios : scenarios.slice(0, SERVER_SEEDS)) {
          for (const days of TIMEFRAMES) {
            const w = daysWindow(days, new Date(NOW));
            const [from, to] = [w.from.getTime(), w.to.getTime()];
            const funnel = oraclePurchases(s.events, s.bot.id, from, to, false);
            for (const by of ['source', 'utm_campaign', 'device'] as const) {
              const sources = await repo.sources(s.bot.id, w, by);
              t.same(sources, oracleSources(s.events, s.bot.id, from, to, by), `sources by ${by}, seed ${s.seed}, ${days} day(s)`);
              // Each visitor has one value: the rows and other add up to the purchases statistic.
              const sum = (k: 'visitors' | 'chatted' | 'purchasers') => sources.rows.reduce((n, r) => n + r[k], sources.other[k]);
              t.same([sum('visitors'), sum('chatted'), sum('purchasers')], [funnel.total_users, funnel.total_users_chatted, funnel.total_users_purchased], `sources by ${by} add up`);
            }
            for (const filter of filtersOf(s, from, to)) {
              const at = `seed ${s.seed}, ${days} day(s), ${JSON.stringify(filter)}`;
              const S = segmentTokens(s.events, s.bot.id, from, to, filter);
              const mine = restrictTo(s.events, S);
              t.same(await repo.engagement(s.bot.id, w, filter), oracleEngagement(mine, s.bot.id, from, to), `engagement, ${at}`);
              t.same(await repo.popupMetrics(s.bot.id, w, filter), oraclePopupMetrics(mine, s.bot.id, from, to), `popup-metrics, ${at}`);
              const p = await repo.purchases({ ...s.bot, abTestEnabled: false }, w, filter);
              t.same(p, oraclePurchases(mine, s.bot.id, from, to, false), `purchases, ${at}`);
              const withAb = await repo.purchases({ ...s.bot, abTestEnabled: true }, w, filter) as Record<string, unknown>;
              t.same(Object.fromEntries(Object.entries(withAb).filter(([k]) => k !== 'ab_test')), p, `purchases with the A/B block: the same funnel, ${at}`);
              const { days: series } = await repo.timeseries(s.bot.id, w, filter);
              const expectedDay = oracleTimeseries(mine, s.bot.id, from, to);
              t.same(series, series.map((d) => ({ date: d.date, ...expectedDay(d.date) })), `timeseries, ${at}`);
              t.same(await repo.sources(s.bot.id, w, 'device', filter), oracleSources(s.events, s.bot.id, from, to, 'device', filter), `sources by device, ${at}`);
              if (checkPostgres) t.same(await repo.overview(s.bot.id, w, filter), oracleOverviewOf(s.convos, S, s.bot.id, from, to), `overview, ${at}`);
            }
          }
        }
      });
    }
  });
}
