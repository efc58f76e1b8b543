import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createKafkaBus } from '@chatlytics/bus';
import { startKafka, startService, trackLoad } from '@chatlytics/bus/testing';
import { createLogger, loadConfig } from '@chatlytics/core';
import { serverUnderTest } from '@chatlytics/core/testing';
import { decodeStoredEvent } from '@chatlytics/events';

// Runs with the Kafka tests (KAFKA_BROKERS set, as in CI) but on a broker of its own
// (scripts/kafka/run.sh), because it kills that broker: the ingest service keeps running and
// publishing with the idempotent producer across the restart.
const kafka = serverUnderTest('KAFKA_BROKERS');
// JVM and service start-ups dominate; on a busy 2-core machine they have taken minutes.
t.setTimeout(900_000);
const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

t.test('ingest on Kafka survives a broker restart: 200 or 503 + Retry-After, then 200 again, no event written twice', { skip: kafka.skip }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-kafka-restart-'));
  let cluster = await startKafka({ brokers: 1 });
  t.teardown(async () => { await cluster.stop(); fs.rmSync(cluster.dir, { recursive: true, force: true }); fs.rmSync(dataDir, { recursive: true, force: true }); });
  const topic = `ingest-restart-${process.pid}`;
  const env = { KAFKA_BROKERS: cluster.brokers, KAFKA_TOPIC: topic, KAFKA_DLQ_TOPIC: `${topic}-dlq`, KAFKA_GROUP_ID: `${topic}-g` };
  const ingest = await startService('services/ingest/src/server.ts', {
    ...env, DATA_DIR: dataDir, INGEST_PORT: '0', TRACK_RATE_LIMIT_PER_MINUTE: '100000000',
  });
  t.teardown(() => ingest.kill('SIGKILL'));

  const load = trackLoad(ingest.url, 8);
  await load.moreAccepted(300);
  // SIGKILL: no clean shutdown, the broker recovers its log on restart.
  process.kill(cluster.nodePid(1), 'SIGKILL');
  await cluster.stop();
  const during = load.results.size;
  await new Promise((r) => setTimeout(r, 2_000));
  cluster = await startKafka({ brokers: 1, dir: cluster.dir });
  await load.moreAccepted(300);
  await load.stop();

  const all = [...load.results.values()];
  const statuses = new Set(all.map((r) => r.status));
  t.same([...statuses].filter((s) => s !== 200 && s !== 503), [], `only 200 and 503 answered (${[...statuses].join(', ')})`);
  t.ok(load.count(503) > 0, `the outage was seen: ${load.count(503)} answers 503`);
  t.ok(all.filter((r) => r.status === 503).every((r) => Number(r.retryAfter) > 0), 'every 503 carries Retry-After');
  t.ok(load.results.size > during, 'the same ingest process accepts again after the restart');

  const bus = createKafkaBus({ kafka: { ...loadConfig(env).kafka }, log });
  t.teardown(() => bus.close());
  const seen = new Map<string, number>();
  await bus.replay({ stream: 'events', fromTime: 0, handler: async (batch) => {
    for (const m of batch.messages) {
      const d = decodeStoredEvent(m.value);
      if (d.ok) seen.set(d.event.event_id, (seen.get(d.event.event_id) ?? 0) + 1);
    }
  } });
  const accepted = [...load.results].filter(([, r]) => r.status === 200).map(([id]) => id);
  const raw = [...seen.values()].reduce((a, b) => a + b, 0);
  t.comment(`accepted ${accepted.length}, answered 503 ${load.count(503)}, raw messages in the topic ${raw}, distinct ${seen.size}`);
  t.equal(accepted.filter((id) => !seen.has(id)).length, 0, 'every 200 is in the topic');
  t.equal(raw, seen.size, 'no event written twice (idempotent producer)');
});
