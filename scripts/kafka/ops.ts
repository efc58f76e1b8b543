/**
 * `npm run kafka:ops -- <command>`: the operator commands of the consumer runbook
 * (services/consumer/README.md), against the cluster of KAFKA_BROKERS / KAFKA_TOPIC /
 * KAFKA_GROUP_ID (an entry point: it reads the environment).
 *
 *   lag                                   the group's lag per partition, its age, the retention used,
 *                                         and its committed offset per partition
 *   partitions --to N [--tokens FILE] [--dry-run]
 *                                         grow the events topic to N partitions; with FILE (one user
 *                                         token a line), first list the tokens that move partition
 *   skip --partition P --offset N         commit offset N for partition P (consumers stopped): past a
 *                                         batch that crashes every consumer process
 */
import fs from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { pino } from 'pino';
import { loadConfig, type Logger } from '@chatlytics/core';
import { createKafkaBus } from '@chatlytics/bus';
import { addPartitions, movedKeys, partitionCount, skipTo } from '@chatlytics/bus/operations';

const [command, ...rest] = process.argv.slice(2);
const flag = (name: string) => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? rest[i + 1] : undefined;
};
const usage = 'usage: kafka:ops -- lag | partitions --to N [--tokens FILE] [--dry-run] | skip --partition P --offset N';
const config = loadConfig(process.env);
const { kafka } = config;
if (!kafka.brokers?.length) throw new Error('KAFKA_BROKERS is not set');
const admin = new Kafka({ clientId: 'chatlytics-ops', brokers: kafka.brokers, logLevel: logLevel.NOTHING }).admin();
await admin.connect();
try {
  if (command === 'lag') {
    // Warnings (a topic keeping less than KAFKA_RETENTION_HOURS) on stderr: stdout is the JSON.
    const bus = createKafkaBus({ kafka: { ...kafka, createTopics: false }, log: pino({ level: 'warn' }, pino.destination(2)) as unknown as Logger });
    try {
      const r = await bus.lagReport();
      const [group] = await admin.fetchOffsets({ groupId: kafka.groupId, topics: [kafka.topic] });
      const ageS = r.oldestUncommittedAt === null ? 0 : (Date.now() - r.oldestUncommittedAt) / 1000;
      console.log(JSON.stringify({
        topic: kafka.topic, group: kafka.groupId,
        lag_messages: r.partitions.reduce((s, p) => s + p.messages, 0), lag_seconds: Math.round(ageS),
        retention_hours: r.retentionMs === null ? null : r.retentionMs / 3_600_000,
        retention_used: r.retentionMs ? Number((ageS * 1000 / r.retentionMs).toFixed(4)) : null,
        partitions: Object.fromEntries(r.partitions.map((p) => [p.partition, p.messages])),
        // -1: the group never committed there (it starts at the log start).
        committed: Object.fromEntries((group?.partitions ?? []).map((p) => [p.partition, Number(p.offset)])),
      }));
    } finally {
      await bus.close();
    }
  } else if (command === 'partitions') {
    const to = Number(flag('to'));
    if (!Number.isInteger(to) || to < 1) throw new Error(usage);
    const from = await partitionCount(admin, kafka.topic);
    const file = flag('tokens');
    if (file) {
      const tokens = [...new Set(fs.readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean))];
      const moved = movedKeys(tokens, from, to);
      for (const m of moved) console.log(`${m.key}\t${m.from} -> ${m.to}`);
      console.error(`${moved.length} of ${tokens.length} tokens move partition (${from} -> ${to} partitions)`);
    }
    if (rest.includes('--dry-run')) {
      console.error(`dry run: ${kafka.topic} keeps ${from} partitions`);
    } else {
      await addPartitions(admin, kafka.topic, to);
      console.error(`${kafka.topic}: ${from} -> ${await partitionCount(admin, kafka.topic)} partitions`);
    }
  } else if (command === 'skip') {
    const partition = Number(flag('partition'));
    const offset = flag('offset');
    if (!Number.isInteger(partition) || !offset || !/^\d+$/.test(offset)) throw new Error(usage);
    const { from } = await skipTo(admin, kafka.groupId, kafka.topic, partition, BigInt(offset));
    console.error(`${kafka.groupId} ${kafka.topic}/${partition}: committed ${from ?? 'nothing'} -> ${offset}`);
  } else {
    throw new Error(usage);
  }
} finally {
  await admin.disconnect();
}
