import t from 'tap';
import { loadConfig } from '@chatlytics/core';
import { createKafkaBus } from '@chatlytics/bus';
import { serverUnderTest } from '@chatlytics/core/testing';
import { events, toMessage } from './events.js';
import { consumerFor, silent, until } from './helpers.js';
import { counts, deadLetters, migratedChdb, tempDir } from './real-engines.js';

// The same pipeline against a real Kafka broker (CI: scripts/kafka/run.sh, 6 partitions per topic),
// so batches of several partitions share the buffer for real. Skipped locally without
// KAFKA_BROKERS; under CI a missing variable fails (serverUnderTest).
const server = serverUnderTest('KAFKA_BROKERS');

t.test('kafka: events land exactly once, poison goes to events_rejected and the DLQ topic', { skip: server.skip }, async (t) => {
  const chdbDir = tempDir('consumer-kafka-chdb-');
  const ch = await migratedChdb(chdbDir.dir);
  // Tests are entry points: the flags (KAFKA_CREATE_TOPICS, KAFKA_IDEMPOTENT) come from the environment.
  const base = loadConfig(process.env).kafka;
  const scope = `consumer-${process.pid}-${Date.now().toString(36)}`;
  const bus = await createKafkaBus({
    kafka: { ...base, topic: scope, dlqTopic: `${scope}-dlq`, groupId: `${scope}-group`, partitions: 6 },
    log: silent, retryBackoff: { initialMs: 10, maxMs: 50 }, sessionTimeoutMs: 6000,
  });
  t.teardown(async () => { await bus.close(); await ch.close(); chdbDir.remove(); });

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
