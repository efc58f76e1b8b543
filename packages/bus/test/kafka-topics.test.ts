import { Writable } from 'node:stream';
import t from 'tap';
import { pino } from 'pino';
import { Kafka, logLevel } from 'kafkajs';
import { loadConfig, type Logger } from '@chatlytics/core';
import { serverUnderTest } from '@chatlytics/core/testing';
import { createKafkaBus } from '../src/index.js';
import { Collector, message, testBackoff, testLog } from './helpers.js';

// Topics' retention and the lag report against a real broker (CI: scripts/kafka/run.sh).
const server = serverUnderTest('KAFKA_BROKERS');
const HOUR = 3_600_000;

function capturedLog(): { log: Logger; lines: () => Record<string, unknown>[] } {
  const out: string[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { out.push(String(chunk)); done(); } });
  return { log: pino({ level: 'info' }, stream) as unknown as Logger, lines: () => out.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
}

t.test('kafka topics and lag', { skip: server.skip }, async (t) => {
  const base = loadConfig(process.env).kafka;
  const run = `topics-${process.pid}-${Date.now().toString(36)}`;
  const admin = new Kafka({ clientId: 'topics-test', brokers: base.brokers!, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  t.teardown(() => admin.disconnect());
  const retentionOf = async (topic: string) => {
    const { resources } = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: topic, configNames: ['retention.ms'] }] });
    return Number(resources[0].configEntries.find((e) => e.configName === 'retention.ms')?.configValue);
  };

  t.test('created topics carry KAFKA_RETENTION_HOURS as retention.ms, and the lag report reads it', async (t) => {
    const kafka = { ...base, topic: `${run}-a`, dlqTopic: `${run}-a-dlq`, groupId: `${run}-a-g`, partitions: 3, retentionHours: 36 };
    const bus = createKafkaBus({ kafka, log: testLog, retryBackoff: testBackoff, sessionTimeoutMs: 6000 });
    t.teardown(() => bus.close());
    await bus.prepare();
    t.equal(await retentionOf(kafka.topic), 36 * HOUR, 'events topic');
    t.equal(await retentionOf(kafka.dlqTopic), 36 * HOUR, 'dead-letter topic');
    const empty = await bus.lagReport();
    t.same(empty, { partitions: [0, 1, 2].map((partition) => ({ partition, messages: 0 })), oldestUncommittedAt: null, retentionMs: 36 * HOUR });

    // 30 messages, then a consumer that accepts nothing: the report finds the first one's time.
    const before = Date.now();
    for (let i = 0; i < 3; i++) {
      await bus.publish(Array.from({ length: 10 }, (_, j) => message(run, `tok_lag_${j}`, i * 10 + j)));
      await new Promise((r) => setTimeout(r, 1100));
    }
    const report = await bus.lagReport();
    t.equal(report.partitions.reduce((s, p) => s + p.messages, 0), 30, 'every message waits');
    t.equal(report.partitions.length, 3, 'per partition');
    t.ok(report.oldestUncommittedAt! >= before - 1000 && report.oldestUncommittedAt! <= before + 1000, `the first publish's time (${report.oldestUncommittedAt! - before} ms off)`);

    // Commit the first 10 (one batch per partition accepted, the rest refused): the oldest moves on.
    const c = new Collector();
    const accepted = new Set<number>();
    c.behaviour = (b) => { if (accepted.has(b.partition) || Number(b.messages[0].offset) > 0) throw new Error('refused'); accepted.add(b.partition); };
    const consumer = await bus.consume(c.handler);
    t.teardown(() => consumer.stop());
    for (const deadline = Date.now() + 60_000; (await bus.lag()) === 30 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 200));
    await consumer.stop();
    const later = await bus.lagReport();
    t.ok(later.partitions.reduce((s, p) => s + p.messages, 0) < 30, 'some committed');
    t.ok(later.oldestUncommittedAt === null || later.oldestUncommittedAt > report.oldestUncommittedAt!, 'the oldest uncommitted is younger now');
  });

  t.test('an existing topic keeping events for less than KAFKA_RETENTION_HOURS is reported at start-up, and left as it is', async (t) => {
    const topic = `${run}-b`;
    await admin.createTopics({ topics: [topic, `${topic}-dlq`].map((name) => ({ topic: name, numPartitions: 2, configEntries: [{ name: 'retention.ms', value: String(2 * HOUR) }] })) });
    const { log, lines } = capturedLog();
    const bus = createKafkaBus({ kafka: { ...base, topic, dlqTopic: `${topic}-dlq`, groupId: `${topic}-g`, partitions: 24, retentionHours: 168 }, log });
    t.teardown(() => bus.close());
    await bus.prepare();
    const warned = lines().filter((l) => /less than KAFKA_RETENTION_HOURS/.test(String(l.msg)));
    t.same(warned.map((l) => [l.topic, l.retentionHours, l.configuredHours]).sort(), [[topic, 2, 168], [`${topic}-dlq`, 2, 168]], 'one warning per short topic, with both figures');
    t.ok(lines().some((l) => l.topic === topic && l.partitions === 2 && l.configuredPartitions === 24), 'the partition count differing from KAFKA_PARTITIONS is logged');
    t.equal(await retentionOf(topic), 2 * HOUR, 'not altered');
    t.equal((await bus.lagReport()).retentionMs, 2 * HOUR, 'the lag report uses the retention the topic has');
  });
});
