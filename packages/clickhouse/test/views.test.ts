import t from 'tap';
import { pino } from 'pino';
import { generateEvents } from '@chatlytics/testkit';
import { createChdbEngine, rebuildRollups, runMigrations } from '../src/index.js';
import { verifyAggregates } from '../src/verify.js';
import { splitStatements } from '../src/sql-split.js';
import { sqlFile } from '../src/sql-files.js';
import { CLEARED_TABLES, VIEWS, recomputeSql, viewChecksum, viewSelect } from '../src/views.js';
import { insertEvents, tempDataDir } from './helpers.js';

/**
 * Each view is one file (clickhouse/views/): the migrations' last step makes every view be its
 * file, and only when the file changed or the view is missing; the rebuild, the repair and verify
 * read the same text.
 */
const engine = await createChdbEngine({ path: tempDataDir(t), database: 'views', log: pino({ level: 'silent' }) });
t.teardown(() => engine.close());
const NOW = Date.UTC(2026, 5, 20, 12);

const ledger = async () => new Map((await engine.query<{ name: string; checksum: string }>(
  'SELECT name, argMax(checksum, applied_at) AS checksum FROM schema_views GROUP BY name',
)).map((r) => [r.name, r.checksum]));

t.test('a fresh store: every view applied once and recorded with its file\'s checksum', async (t) => {
  const first = await runMigrations(engine);
  t.same(first.views.sort(), VIEWS.map((v) => v.name).sort());
  const recorded = await ledger();
  for (const v of VIEWS) t.equal(recorded.get(v.name), viewChecksum(v), v.name);
  t.same((await runMigrations(engine)).views, [], 'a second start applies no view');
});

t.test('a view whose file changed since it was recorded gets the file\'s query in place, while inserts go on', async (t) => {
  const events = generateEvents({ seed: 57, now: NOW, chatbotId: 'bot-a', otherChatbotIds: ['bot-b'], users: 40 });
  const half = Math.floor(events.length / 2);
  // The swap races an insert: each of its rows is seen by the old query or the new one, never by neither.
  await engine.insert('schema_views', VIEWS.map((v) => ({ name: v.name, checksum: 'an older file' })));
  const [swapped] = await Promise.all([runMigrations(engine), insertEvents(engine, events.slice(0, half))]);
  t.same(swapped.views.sort(), VIEWS.map((v) => v.name).sort(), 'every view whose record differs');
  t.same(await verifyAggregates(engine), [], 'no row missed or counted twice across the swap');

  await engine.insert('schema_views', [{ name: 'event_hour_counts_mv', checksum: 'an older file' }]);
  await engine.command('ALTER TABLE event_hour_counts_mv MODIFY QUERY SELECT chatbot_id, toStartOfHour(received_at) AS hour, event, \'\' AS popup_version, \'\' AS open_way, toUInt64(0) AS events FROM events');
  await insertEvents(engine, events.slice(half));
  t.ok((await verifyAggregates(engine)).every((d) => d.check === 'event_hour_counts'), 'rows counted by a stale query are found by verify (which reads the file)');
  t.same((await runMigrations(engine)).views, ['event_hour_counts_mv'], 'only the changed view');
  const [{ text }] = await engine.query<{ text: string }>("SELECT as_select AS text FROM system.tables WHERE database = 'views' AND name = 'event_hour_counts_mv'");
  t.match(text, /count\(\) AS events/, 'the file\'s query, not the stale one');
  await engine.command("TRUNCATE TABLE event_hour_counts");
  await rebuildRollups(engine);
  t.same(await verifyAggregates(engine), [], 'the rebuild (the file\'s query over the stored rows) mends it');
});

t.test('a view dropped by hand is made again at the next start', async (t) => {
  await engine.command('DROP VIEW purchases_mv');
  t.same((await runMigrations(engine)).views, ['purchases_mv']);
  const [{ n }] = await engine.query<{ n: string }>("SELECT count() AS n FROM system.tables WHERE database = 'views' AND name = 'purchases_mv'");
  t.equal(n, '1');
});

t.test('the rebuild and the repair run each view\'s own SELECT; the repair clears exactly the tables that would count twice', async (t) => {
  const inserts = recomputeSql('SELECT * FROM events');
  for (const v of VIEWS.filter((v) => v.from === 'events' && v.recompute)) {
    const insert = inserts.find((i) => i.table === v.to);
    t.ok(insert?.sql.endsWith(viewSelect(v)), `${v.to}: INSERT … ${v.name}'s file`);
  }
  const cleared = splitStatements(sqlFile('verify/clear_day')).map((s) => /^DELETE FROM (\w+)/m.exec(s)?.[1]);
  t.same(cleared.sort(), [...CLEARED_TABLES].sort());
});
