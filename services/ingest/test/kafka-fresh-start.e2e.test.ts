import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Kafka, logLevel } from 'kafkajs';
import { startKafka, startService } from '@chatlytics/bus/testing';
import { serverUnderTest } from '@chatlytics/core/testing';

// Runs with the Kafka tests (KAFKA_BROKERS set, as in CI) but on a broker of its own: the point
// is a cluster that has never seen the topics, its group and transaction coordinators included.
const kafka = serverUnderTest('KAFKA_BROKERS');
// JVM and service start-ups dominate; on a busy 2-core machine they have taken minutes.
t.setTimeout(600_000);

t.test('ingest on a fresh Kafka: topics created before it listens, the first requests answer 200', { skip: kafka.skip }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-kafka-fresh-'));
  const cluster = await startKafka({ brokers: 1 });
  t.teardown(async () => { await cluster.stop(); fs.rmSync(cluster.dir, { recursive: true, force: true }); fs.rmSync(dataDir, { recursive: true, force: true }); });
  const ingest = await startService('services/ingest/src/server.ts', {
    KAFKA_BROKERS: cluster.brokers, KAFKA_PARTITIONS: '3', DATA_DIR: dataDir, INGEST_PORT: '0',
  });
  t.teardown(() => ingest.kill('SIGKILL'));

  // Every request is a first one: none may meet a topic still being created or a producer id not yet issued.
  const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
    const res = await fetch(`${ingest.url}/api/analytics/track`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'visitor', token: `tok_fresh_${i}`, data: { chatbot_id: 'bot-fresh' } }),
    });
    return `${res.status} ${await res.text()}`;
  }));
  t.same(answers, answers.map(() => '200 {"success":true}'), 'the 20 first requests answer 200');
  t.equal((await fetch(`${ingest.url}/ready`)).status, 200, '/ready answers 200');

  const out = ingest.output();
  const ensured = out.indexOf('"msg":"kafka topics ensured"');
  t.ok(ensured >= 0 && ensured < out.indexOf('Server listening'), 'topics ensured before the server listened');

  const admin = new Kafka({ clientId: 'fresh-start-test', brokers: cluster.brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  t.teardown(() => admin.disconnect());
  const meta = await admin.fetchTopicMetadata({ topics: ['analytics-events', 'analytics-events-dlq'] });
  t.same(meta.topics.map((m) => [m.name, m.partitions.length]).sort(), [['analytics-events', 3], ['analytics-events-dlq', 3]], 'both topics with KAFKA_PARTITIONS partitions');
  const offsets = await admin.fetchTopicOffsets('analytics-events');
  t.equal(offsets.reduce((n, p) => n + Number(p.high), 0), 20, 'the 20 events are in the topic');
});
