import t from 'tap';
import Fastify from 'fastify';
import { Kafka, logLevel } from 'kafkajs';
import { startService, trackLoad, type ServiceProcess } from '@chatlytics/bus/testing';
import { CLICKHOUSE_HTTP_MAX_URI_BYTES, clickhouseHttp, createServerEngine, runMigrations } from '@chatlytics/clickhouse';
import { serverUnderTest } from '@chatlytics/core/testing';
import { silent } from './helpers.js';
import { tempDir } from './real-engines.js';

// Consumer scale-out against the real broker (CI: scripts/kafka/run.sh): events flow in
// through the ingest service while `start:consumer` processes share a 6-partition topic.
// Several processes need ONE ClickHouse and no server binary is reachable here, so they use
// the server adapter (CLICKHOUSE_URL) against the project's ClickHouse HTTP interface over
// the embedded engine, served by this test process (the same bridge as /clickhouse).
const kafka = serverUnderTest('KAFKA_BROKERS');
// JVM and service start-ups dominate; on a busy 2-core machine they have taken minutes.
t.setTimeout(900_000);

t.test('3 consumer processes, one SIGKILLed mid-stream, a 4th started: every acknowledged event stored exactly once', { skip: kafka.skip }, async (t) => {
  const dirs = tempDir('consumer-scale-out-');
  t.teardown(() => dirs.remove());
  const t0 = Date.now();
  // Progress with timings: where the time goes when a loaded machine makes this slow.
  const step = (what: string) => t.comment(`${((Date.now() - t0) / 1000).toFixed(1)} s: ${what}`);
  const bridge = Fastify({ http: { maxHeaderSize: CLICKHOUSE_HTTP_MAX_URI_BYTES } });
  await bridge.register(clickhouseHttp, { sessionPath: `${dirs.dir}/clickhouse`, database: 'default', readonly: false });
  const clickhouseUrl = await bridge.listen({ host: '127.0.0.1', port: 0 });
  t.teardown(() => bridge.close());
  const database = `scale_out_${process.pid}`;
  const ch = await createServerEngine({ url: clickhouseUrl, user: 'default', password: '', database, log: silent, requestTimeoutMs: 60_000 });
  t.teardown(() => ch.close());
  // Migrated once here, so the consumers' own start-up migrations find nothing to do.
  await runMigrations(ch);

  const topic = `scale-out-${process.pid}-${Date.now().toString(36)}`;
  const env = {
    KAFKA_BROKERS: kafka.value!, KAFKA_TOPIC: topic, KAFKA_DLQ_TOPIC: `${topic}-dlq`, KAFKA_GROUP_ID: `${topic}-g`, KAFKA_PARTITIONS: '6',
    CLICKHOUSE_URL: clickhouseUrl, CLICKHOUSE_DATABASE: database,
  };
  const processes: ServiceProcess[] = [];
  t.teardown(() => Promise.all(processes.map((p) => p.kill('SIGKILL'))));
  const start = async (entry: string, extra: Record<string, string>) => {
    const p = await startService(entry, { ...env, ...extra });
    processes.push(p);
    return p;
  };
  const ingest = await start('services/ingest/src/server.ts', { DATA_DIR: `${dirs.dir}/ingest`, INGEST_PORT: '0', TRACK_RATE_LIMIT_PER_MINUTE: '100000000' });
  const consumer = (n: number) => start('services/consumer/src/server.ts', { DATA_DIR: `${dirs.dir}/consumer-${n}`, CONSUMER_PORT: '0' });
  const consumers = await Promise.all([1, 2, 3].map(consumer));
  step('ingest and 3 consumers up');

  const load = trackLoad(ingest.url, 4);
  await load.moreAccepted(400);
  step('400 accepted');
  await consumers[0].kill('SIGKILL');
  step('consumer 1 killed');
  await load.moreAccepted(400);
  await consumer(4);
  step('consumer 4 up');
  await load.moreAccepted(400);
  await load.stop();
  step('load stopped');

  const accepted = [...load.results].filter(([, r]) => r.status === 200).map(([id]) => id);
  t.equal(load.count(200), load.results.size, 'ingest answered 200 to every event');
  const stored = async () => new Set((await ch.query<{ id: string }>('SELECT DISTINCT toString(event_id) AS id FROM events')).map((r) => r.id));
  let ids = await stored();
  // Bounded wait; the assertions below say what is missing if it runs out.
  for (const deadline = Date.now() + 180_000; Date.now() < deadline && !accepted.every((id) => ids.has(id));) {
    await new Promise((r) => setTimeout(r, 500));
    ids = await stored();
  }
  step('all stored');
  if (!accepted.every((id) => ids.has(id))) {
    // What the services said went wrong: a stall's cause is in their error logs.
    processes.forEach((p, i) => {
      const errors = p.output().split('\n').filter((l) => /"level":(50|60)/.test(l));
      for (const line of errors.slice(-3)) t.comment(`process ${i}: ${line.slice(0, 400)}`);
    });
  }
  const [c] = await ch.query<{ raw: string; distinct: string; final: string }>(
    'SELECT (SELECT count() FROM events) AS raw, (SELECT uniqExact(event_id) FROM events) AS distinct, (SELECT count() FROM events FINAL) AS final');
  t.comment(`accepted ${accepted.length}, raw rows ${c.raw}, distinct event ids ${c.distinct}, rows after FINAL ${c.final}`);
  t.equal(accepted.filter((id) => !ids.has(id)).length, 0, 'every acknowledged event is stored');
  t.equal(Number(c.distinct), accepted.length, 'nothing stored that was not acknowledged');
  t.equal(Number(c.final), accepted.length, 'the dedup-correct read counts each event once');
  // The group healed: the killed member is gone (after its session timeout), the three live ones share the partitions.
  const admin = new Kafka({ clientId: 'scale-out-test', brokers: kafka.value!.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  t.teardown(() => admin.disconnect());
  let members = -1;
  for (const deadline = Date.now() + 90_000; Date.now() < deadline && members !== 3;) {
    const { groups } = await admin.describeGroups([env.KAFKA_GROUP_ID]);
    members = groups[0]?.members.length ?? 0;
    if (members !== 3) await new Promise((r) => setTimeout(r, 1000));
  }
  const joins = processes.slice(1).map((p) => (p.output().match(/kafka partitions assigned/g) ?? []).length);
  t.equal(members, 3, `the group rebalanced to the 3 live consumers (assignments logged per consumer: ${joins.join(', ')})`);
});
