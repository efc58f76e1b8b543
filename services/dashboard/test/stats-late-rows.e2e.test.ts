/**
 * The insert-time aggregates against late rows: the events of several seeds arrive in many
 * inserts, in an order unlike their times (a backfill of past days after live traffic, the
 * retried copies last, other chatbots' rows between), as the consumer and `cli import` insert
 * them. After every insert the statistics equal the oracle over the rows inserted so far:
 * a row is aggregated when it arrives, whatever hour it belongs to, and nothing is counted twice
 * (clickhouse/README.md, "The statistics engine"). The event-reading statistics only, on chdb.
 */
import t from 'tap';
import type { StoredEvent } from '@chatlytics/events';
import { createRng, generateEvents } from '@chatlytics/testkit';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createStatsRepository } from '../src/stats/readers.js';
import { daysWindow } from '../src/stats/window.js';
import { insertEvents, openClickHouse } from './stats-fixtures.js';
import { oracleEngagement, oraclePopupMetrics, oraclePurchases } from './stats-oracle.js';

const NOW = Date.parse('2026-05-20T12:34:56.789Z');
const DAY = 86_400_000;
const rng = createRng(4242);
const bot = rng.uuid();
const events = generateEvents({ seed: 17, now: NOW, chatbotId: bot, otherChatbotIds: [rng.uuid()], boundaryDays: [1, 7, 30] });
const at = (e: StoredEvent) => Date.parse(`${e.received_at.replace(' ', 'T')}Z`);

// Arrival order: the last 3 days (live), then days 3–30 back (a backfill, newest first), each
// part in several inserts; the retried copies (second rows of an id) of each part arrive after it.
const seen = new Set<string>();
const firsts: StoredEvent[] = [];
const copies: StoredEvent[] = [];
for (const e of [...events].sort((a, b) => at(a) - at(b))) (seen.has(e.event_id) ? copies : (seen.add(e.event_id), firsts)).push(e);
const live = firsts.filter((e) => at(e) > NOW - 3 * DAY);
const past = firsts.filter((e) => at(e) <= NOW - 3 * DAY).reverse();
const chunks = (rows: StoredEvent[], n: number) => Array.from({ length: n }, (_, i) => rows.slice(Math.floor(i * rows.length / n), Math.floor((i + 1) * rows.length / n)));
const arrivals = [...chunks(live, 3), ...chunks(past, 4), copies];

const ch = await openClickHouse();
t.teardown(() => ch.close());
const pglite = databaseVariants().find((v) => v.name === 'pglite');
if (!pglite) throw new Error('no PGlite variant');
const pg = await pglite.open();
t.teardown(() => pg.destroy());
// The statistics read here are ClickHouse's alone; PostgreSQL only completes the repository.
const stats = createStatsRepository({ clickhouse: ch.embedded, db: pg.postgres.db, appUrl: 'https://app.example.test' });

t.test('after every insert, each statistic equals the oracle over the rows stored so far', async (t) => {
  t.ok(past.length > 0 && live.length > 0 && copies.length > 0, 'live rows, past rows and retried copies');
  const stored: StoredEvent[] = [];
  for (const [i, batch] of arrivals.entries()) {
    await insertEvents(ch.embedded, batch);
    stored.push(...batch);
    for (const days of [1, 7, 30]) {
      const w = daysWindow(days, new Date(NOW));
      const [from, to] = [w.from.getTime(), w.to.getTime()];
      const label = `after insert ${i + 1} of ${arrivals.length}, ${days} day(s)`;
      t.same(await stats.engagement(bot, w), oracleEngagement(stored, bot, from, to), `engagement, ${label}`);
      t.same(await stats.popupMetrics(bot, w), oraclePopupMetrics(stored, bot, from, to), `popup-metrics, ${label}`);
      t.same(await stats.purchases({ id: bot, abTestEnabled: false }, w), oraclePurchases(stored, bot, from, to, false), `purchases, ${label}`);
    }
  }
});
