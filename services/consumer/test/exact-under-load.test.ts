import t from 'tap';
import { createEmbeddedBus, type EventBus } from '@chatlytics/bus';
import { verifyAggregates, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { events, storedEvent, toMessage } from './events.js';
import { consumerFor, silent, until } from './helpers.js';
import { counts, flakyInserts, migratedChdb, tempDir } from './real-engines.js';

/**
 * Exactness when the load is what breaks it (issue: "exact under load"): a backlog read ahead
 * several batches at a time with two inserts in flight, and an insert that fails after `events`
 * took its rows. Each ends with the engine's own verification: every aggregate equal to what
 * `events` says, one id per token, no id for two tokens.
 */
const chdbDir = tempDir('consumer-exact-');
t.teardown(() => chdbDir.remove());

async function setup(t: { teardown(fn: () => Promise<void>): void }, opts: { maxBatchMessages: number; readAhead: number }) {
  const busDir = tempDir('consumer-exact-bus-');
  const ch = await migratedChdb(chdbDir.dir);
  const bus: EventBus = await createEmbeddedBus({ dir: busDir.dir, log: silent, ...opts, retryBackoff: { initialMs: 5, maxMs: 50 } });
  t.teardown(async () => { await bus.close(); await ch.close(); busDir.remove(); });
  return { ch, bus };
}

async function tokenIdRule(ch: ClickHouseEngine) {
  const [row] = await ch.query<{ tokens: string; ids: string; shared: string; split: string }>(`
    SELECT uniqExact(chatbot_id, token) AS tokens, uniqExact(chatbot_id, token_id) AS ids,
      (SELECT count() FROM (SELECT chatbot_id, token_id FROM events WHERE token_id != 0 GROUP BY chatbot_id, token_id HAVING uniqExact(token) > 1)) AS shared,
      (SELECT count() FROM (SELECT chatbot_id, token FROM events WHERE token_id != 0 GROUP BY chatbot_id, token HAVING uniqExact(token_id) > 1)) AS split
    FROM events WHERE NOT is_bot`);
  return row;
}

t.test('a backlog read four batches ahead, two inserts in flight: one id per token, every aggregate exact', async (t) => {
  const { ch, bus } = await setup(t, { maxBatchMessages: 400, readAhead: 4 });
  // Nearly every event a new visitor: the case where two inserts numbering at once collided.
  const sent = Array.from({ length: 12_000 }, (_, i) => storedEvent(i, { token: `visitor_${String(i % 9_000).padStart(6, '0')}`, chatbot_id: `bot-${i % 3}` }));
  await bus.publish(sent.map(toMessage));
  const consumer = consumerFor(bus, ch, { maxRows: 1_000, concurrentWrites: 2 });
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0', 120_000);
  await consumer.stop();
  t.same(await counts(ch), { raw: 12_000, distinct: 12_000 });
  const rule = await tokenIdRule(ch);
  t.match(rule, { shared: '0', split: '0' }, 'no id names two tokens, no token has two ids');
  t.equal(rule.ids, rule.tokens, `${rule.tokens} tokens, as many ids`);
  t.same(await verifyAggregates(ch), [], 'every aggregate is what events says');
});

t.test('an insert that fails after events took its rows: the retry completes every aggregate, counts nothing twice', async (t) => {
  const { ch, bus } = await setup(t, { maxBatchMessages: 200, readAhead: 2 });
  // A view on events that throws while the switch is on, for the batch holding the marker row:
  // `events` has stored the insert's rows by then, and some of its views may have run.
  await ch.command('CREATE TABLE fault_switch (on UInt8) ENGINE = Memory');
  await ch.command('CREATE TABLE fault_sink (x UInt8) ENGINE = Null');
  await ch.command("CREATE MATERIALIZED VIEW fault_mv TO fault_sink AS SELECT throwIf(data LIKE '%fault-marker%' AND (SELECT count() FROM fault_switch) > 0, 'injected fault') AS x FROM events");
  await ch.command('INSERT INTO fault_switch VALUES (1)');
  const sent = events(1_000);
  sent[500] = { ...sent[500], data: '{"note":"fault-marker"}' };
  await bus.publish(sent.map(toMessage));
  let storedWhenItFailed = -1;
  const flaky = flakyInserts(ch, {});
  const failing: ClickHouseEngine = {
    ...flaky,
    async insert(table, rows, opts) {
      try {
        await flaky.insert(table, rows, opts);
      } catch (err) {
        // The fault happened; the next attempt of the same insert succeeds.
        if (storedWhenItFailed < 0) storedWhenItFailed = Number((await ch.query<{ n: string }>('SELECT count() AS n FROM events'))[0].n);
        await ch.command('TRUNCATE TABLE fault_switch');
        throw err;
      }
    },
  };
  const consumer = consumerFor(bus, failing);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.ok(storedWhenItFailed > 0, `the failed insert had stored its rows in events (${storedWhenItFailed} rows then)`);
  t.same(await counts(ch), { raw: 1_000, distinct: 1_000 }, 'no row twice in events');
  t.same(await verifyAggregates(ch), [], 'every aggregate is what events says: the missing parts added, nothing counted twice');
});
