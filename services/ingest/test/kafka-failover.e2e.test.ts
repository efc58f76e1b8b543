import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Kafka, logLevel } from 'kafkajs';
import { createKafkaBus } from '@chatlytics/bus';
import { startKafka, startService, trackLoad } from '@chatlytics/bus/testing';
import { createLogger, loadConfig } from '@chatlytics/core';
import { serverUnderTest } from '@chatlytics/core/testing';
import { decodeStoredEvent } from '@chatlytics/events';

// Runs with the Kafka tests (KAFKA_BROKERS set, as in CI) on a 3-node cluster of its own
// (scripts/kafka/run.sh --brokers 3: replication 3, min.insync.replicas=2, and the producer
// writes with acks=all), because it kills nodes under the running ingest service.
const kafka = serverUnderTest('KAFKA_BROKERS');
// JVM and service start-ups dominate; on a busy 2-core machine they have taken minutes.
t.setTimeout(900_000);
const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

async function leaderOf(brokers: string, topic: string, partition: number): Promise<number> {
  const admin = new Kafka({ clientId: 'failover-test', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    return meta.topics[0].partitions.find((p) => p.partitionId === partition)!.leader;
  } finally {
    await admin.disconnect();
  }
}

t.test('3 brokers: the partition leader killed, then the whole cluster: 200 or 503 + Retry-After, never 500; every 200 stored', { skip: kafka.skip }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-kafka-failover-'));
  const t0 = Date.now();
  // Progress with timings: where the time goes when a loaded machine makes this slow.
  const step = (what: string) => t.comment(`${((Date.now() - t0) / 1000).toFixed(1)} s: ${what}`);
  let cluster = await startKafka({ brokers: 3 });
  t.teardown(async () => { await cluster.stop(); fs.rmSync(cluster.dir, { recursive: true, force: true }); fs.rmSync(dataDir, { recursive: true, force: true }); });
  const topic = `ingest-failover-${process.pid}`;
  const env = {
    KAFKA_BROKERS: cluster.brokers, KAFKA_TOPIC: topic, KAFKA_DLQ_TOPIC: `${topic}-dlq`, KAFKA_GROUP_ID: `${topic}-g`,
    KAFKA_PARTITIONS: '6', KAFKA_REPLICATION_FACTOR: '3',
  };
  step('cluster up');
  const ingest = await startService('services/ingest/src/server.ts', {
    ...env, DATA_DIR: dataDir, INGEST_PORT: '0', TRACK_RATE_LIMIT_PER_MINUTE: '100000000',
  });
  t.teardown(() => ingest.kill('SIGKILL'));

  const load = trackLoad(ingest.url, 8);
  await load.moreAccepted(300);
  step('300 accepted');
  const leader = await leaderOf(cluster.brokers, topic, 0);
  process.kill(cluster.nodePid(leader), 'SIGKILL');
  const phases: [string, number][] = [['before the leader kill', 0], ['after the leader kill', Date.now()]];
  const afterKill = load.results.size;
  step('leader killed');
  await load.moreAccepted(300);
  step('300 more accepted');
  t.comment(`leader ${leader} killed: ${load.count(503)} answers 503 so far`);
  t.not(await leaderOf(cluster.brokers.split(',').filter((_, i) => i + 1 !== leader).join(','), topic, 0), leader, 'a new leader was elected');
  t.ok(load.results.size > afterKill, 'ingest kept accepting on two nodes without a restart');

  // Every node down: 503 with Retry-After until the cluster is back, then 200 again.
  const before503 = load.count(503);
  phases.push(['while the whole cluster stopped', Date.now()]);
  await cluster.stop();
  const deadline = Date.now() + 60_000;
  while (load.count(503) === before503 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  t.ok(load.count(503) > before503, 'a cluster outage answers 503');
  step('cluster stopped, 503 seen');
  cluster = await startKafka({ brokers: 3, dir: cluster.dir });
  phases.push(['after the restart', Date.now()]);
  step('cluster restarted');
  await load.moreAccepted(300);
  await load.stop();

  const all = [...load.results.values()];
  const statuses = [...new Set(all.map((r) => r.status))];
  t.same(statuses.filter((s) => s !== 200 && s !== 503), [], `only 200 and 503 answered (${statuses.join(', ')})`);
  t.ok(all.filter((r) => r.status === 503).every((r) => Number(r.retryAfter) > 0), 'every 503 carries Retry-After');

  step('load stopped');
  const bus = createKafkaBus({ kafka: { ...loadConfig(env).kafka }, log });
  t.teardown(() => bus.close());
  const stored = new Set<string>();
  let raw = 0;
  await bus.replay({ stream: 'events', fromTime: 0, handler: async (batch) => {
    for (const m of batch.messages) {
      const d = decodeStoredEvent(m.value);
      if (d.ok) { stored.add(d.event.event_id); raw++; }
    }
  } });
  const accepted = [...load.results].filter(([, r]) => r.status === 200).map(([id]) => id);
  t.comment(`accepted ${accepted.length}, answered 503 ${load.count(503)}, raw messages ${raw}, distinct ${stored.size}`);
  const missing = accepted.filter((id) => !stored.has(id));
  // A durability failure must say where to look: when the 200 came and which key (partition) it had.
  for (const id of missing) {
    const r = load.results.get(id)!;
    const phase = phases.filter(([, at]) => at <= r.answeredAt).at(-1)![0];
    t.comment(`missing ${id}: token ${r.token}, answered 200 ${phase} (${((r.answeredAt - t0) / 1000).toFixed(1)} s)`);
  }
  t.equal(missing.length, 0, 'every event that got a 200 is stored');
});
