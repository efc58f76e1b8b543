import t from 'tap';
import { loadConfig } from '@chatlytics/core';
import { createKafkaBus } from '@chatlytics/bus';
import { serverUnderTest } from '@chatlytics/core/testing';
import { events, toMessage } from './events.js';
import { consumerFor, silent, until } from './helpers.js';
import { replay } from '../src/replay.js';
import { counts, deadLetters, migratedChdb, tempDir } from './real-engines.js';

// The same pipeline against a real Kafka broker (CI: scripts/kafka/run.sh, 6 partitions per topic),
// so batches of several partitions share the buffer for real. Skipped locally without
// KAFKA_BROKERS; under CI a missing variable fails (serverUnderTest).
const server = serverUnderTest('KAFKA_BROKERS');
// chdb binds one data directory per process: the tests share it, each with its own database.
const chdbDir = tempDir('consumer-kafka-chdb-');
t.teardown(() => chdbDir.remove());

t.test('kafka: events land exactly once, poison goes to events_rejected and the DLQ topic', { skip: server.skip }, async (t) => {
  const ch = await migratedChdb(chdbDir.dir);
  // Tests are entry points: the flags (KAFKA_CREATE_TOPICS, KAFKA_IDEMPOTENT) come from the environment.
  const base = loadConfig(process.env).kafka;
  const scope = `consumer-${process.pid}-${Date.now().toString(36)}`;
  const bus = await createKafkaBus({
    kafka: { ...base, topic: scope, dlqTopic: `${scope}-dlq`, groupId: `${scope}-group`, partitions: 6 },
    log: silent, retryBackoff: { initialMs: 10, maxMs: 50 }, sessionTimeoutMs: 6000,
  });
  t.teardown(async () => { await bus.close(); await ch.close(); });

  const sent = events(1_500);
  await bus.publish(sent.slice(0, 700).map(toMessage));
  await bus.publish([{ key: 'poison', value: Buffer.from('{"oops"') }]);
  await bus.publish(sent.slice(700).map(toMessage));
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => consumer.stats().rowsWritten + consumer.stats().rejected >= 1_501, 'everything written', 60_000);
  await until(async () => (await bus.lag()) === 0, 'lag 0', 60_000);
  await consumer.stop();

  t.same(await counts(ch), { raw: 1_500, distinct: 1_500 });
  const [rejected] = await ch.query<{ n: string }>("SELECT count() AS n FROM events_rejected WHERE reason = 'malformed_json'");
  t.equal(Number(rejected.n), 1);
  const dlq = await deadLetters(bus);
  t.equal(dlq.length, 1);
  t.equal(JSON.parse(dlq[0].value.toString()).payload, '{"oops"');
});

t.test('kafka: replaying the dead-letter topic after a fix stores what is valid now, once, however often it runs', { skip: server.skip }, async (t) => {
  const ch = await migratedChdb(chdbDir.dir);
  const base = loadConfig(process.env).kafka;
  const scope = `consumer-dlq-${process.pid}-${Date.now().toString(36)}`;
  const bus = await createKafkaBus({
    kafka: { ...base, topic: scope, dlqTopic: `${scope}-dlq`, groupId: `${scope}-group`, partitions: 2 },
    log: silent, retryBackoff: { initialMs: 10, maxMs: 50 }, sessionTimeoutMs: 6000,
  });
  t.teardown(async () => { await bus.close(); await ch.close(); });
  // Dead letters whose payloads are valid today (a schema fix shipped since), and one still poison.
  const fixed = events(3, 5_000);
  const wrap = (payload: string) => Buffer.from(JSON.stringify({ reason: 'invalid_event', error: 'x', step: 'validate', source: 'consumer', payload, payload_encoding: 'utf8' }));
  await bus.publishDeadLetter([...fixed.map((e) => ({ key: e.token, value: wrap(JSON.stringify(e)) })), { key: 'k', value: wrap('{') }]);
  const from = new Date(Date.now() - 60_000);
  const first = await replay({ bus, clickhouse: ch, from, stream: 'dead-letter', log: silent });
  t.match(first, { stream: 'dead-letter', messages: 4, inserted: 3, rejected: 1 });
  const again = await replay({ bus, clickhouse: ch, from, stream: 'dead-letter', log: silent });
  t.match(again, { messages: 4, inserted: 0 }, 'a second run finds them stored');
  t.same(await counts(ch), { raw: 3, distinct: 3 });
  t.equal((await deadLetters(bus)).length, 4, 'nothing appended to the topic being replayed');
  t.equal(await bus.lag(), 0, 'the group\'s offsets are not touched');
});
