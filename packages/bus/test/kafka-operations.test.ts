import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Kafka, logLevel } from 'kafkajs';
import { loadConfig } from '@chatlytics/core';
import { serverUnderTest } from '@chatlytics/core/testing';
import { REPO_ROOT } from '@chatlytics/bus/testing';
import { createKafkaBus, type ConsumedMessage } from '../src/index.js';
import { movedKeys, partitionOf } from '../src/kafka/operations.js';
import { message, testBackoff, testLog } from './helpers.js';

// The runbook's commands (`npm run kafka:ops -- …`, scripts/kafka/ops.ts) run as an operator
// runs them, against the real broker (CI: scripts/kafka/run.sh).
const server = serverUnderTest('KAFKA_BROKERS');
const run = promisify(execFile);

t.test('partitionOf is the producer\'s partitioner, and movedKeys lists the tokens a growth moves', async (t) => {
  const tokens = Array.from({ length: 1000 }, (_, i) => `tok_${i}`);
  const moved = movedKeys(tokens, 6, 24);
  // murmur2 mod 6 equals murmur2 mod 24 for a quarter of the keys: three quarters move.
  t.ok(moved.length > 650 && moved.length < 850, `${moved.length} of 1000 move from 6 to 24`);
  t.ok(moved.every((m) => m.from === m.to % 6), 'a key only moves to a partition congruent to its old one');
  t.same(movedKeys(tokens, 24, 24), []);
});

t.test('kafka:ops on the real broker', { skip: server.skip }, async (t) => {
  const base = loadConfig(process.env).kafka;
  const scope = `ops-${process.pid}-${Date.now().toString(36)}`;
  const kafka = { ...base, topic: scope, dlqTopic: `${scope}-dlq`, groupId: `${scope}-g`, partitions: 2 };
  const env = { ...process.env, KAFKA_BROKERS: base.brokers!.join(','), KAFKA_TOPIC: kafka.topic, KAFKA_DLQ_TOPIC: kafka.dlqTopic, KAFKA_GROUP_ID: kafka.groupId };
  const ops = (...args: string[]) => run(process.execPath, ['--import=tsx', path.join(REPO_ROOT, 'scripts/kafka/ops.ts'), ...args], { cwd: REPO_ROOT, env });
  const bus = createKafkaBus({ kafka, log: testLog, retryBackoff: testBackoff, sessionTimeoutMs: 6000 });
  t.teardown(() => bus.close());
  await bus.prepare();
  const tokens = Array.from({ length: 40 }, (_, i) => `tok_ops_${i}`);
  await bus.publish(tokens.map((k, i) => message(scope, k, i)));

  const lag = JSON.parse((await ops('lag')).stdout);
  t.match(lag, { topic: kafka.topic, group: kafka.groupId, lag_messages: 40, retention_hours: base.retentionHours }, 'lag: messages and retention');
  t.equal(Object.keys(lag.partitions).length, 2, 'lag: per partition');

  // A batch that crashes every consumer: skip partition 0 past it with the group empty.
  const p0 = tokens.filter((k) => partitionOf(k, 2) === 0).length;
  const skipped = await ops('skip', '--partition', '0', '--offset', '3');
  t.match(skipped.stderr, new RegExp(`${kafka.groupId} ${kafka.topic}/0: committed nothing -> 3`));
  t.equal(await bus.lag(), 40 - 3, 'the group starts partition 0 at offset 3');
  t.same(JSON.parse((await ops('lag')).stdout).committed, { 0: 3, 1: -1 }, 'lag: the committed offsets');
  const consumed: ConsumedMessage[] = [];
  const consumer = await bus.consume(async (b) => { consumed.push(...b.messages); });
  for (const deadline = Date.now() + 60_000; consumed.length < 37 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
  await consumer.stop();
  t.equal(consumed.filter((m) => m.partition === 0).length, p0 - 3, 'partition 0 delivered from offset 3');
  t.equal(consumed.length, 37);

  // Growing the topic: the listed tokens are exactly those whose next events land elsewhere.
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ops-')), 'tokens.txt');
  fs.writeFileSync(file, tokens.join('\n'));
  t.teardown(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));
  const dry = await ops('partitions', '--to', '5', '--tokens', file, '--dry-run');
  t.match(dry.stderr, /dry run: .* keeps 2 partitions/);
  const grown = await ops('partitions', '--to', '5', '--tokens', file);
  t.match(grown.stderr, new RegExp(`${kafka.topic}: 2 -> 5 partitions`));
  const listed = new Map(grown.stdout.trim().split('\n').filter(Boolean).map((l) => { const [k, move] = l.split('\t'); return [k, Number(move.split(' -> ')[1])]; }));
  t.equal(listed.size, movedKeys(tokens, 2, 5).length);
  t.ok(listed.size > 0, `${listed.size} of 40 tokens move`);
  await t.rejects(ops('partitions', '--to', '3'), 'a topic never shrinks');

  // A fresh producer sees 5 partitions: every token lands where the list (or its old partition) says.
  const after = createKafkaBus({ kafka: { ...kafka, groupId: `${scope}-g2` }, log: testLog, retryBackoff: testBackoff, sessionTimeoutMs: 6000 });
  t.teardown(() => after.close());
  await after.publish(tokens.map((k, i) => message(`${scope}-after`, k, i)));
  const landed = new Map<string, number>();
  const admin = new Kafka({ clientId: 'ops-test', brokers: base.brokers!, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  t.teardown(() => admin.disconnect());
  const c2 = await after.consume(async (b) => {
    for (const m of b.messages) if (JSON.parse(m.value.toString()).run === `${scope}-after`) landed.set(m.key!, m.partition);
  });
  for (const deadline = Date.now() + 60_000; landed.size < 40 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
  await c2.stop();
  t.equal(landed.size, 40);
  t.ok(tokens.every((k) => landed.get(k) === (listed.get(k) ?? partitionOf(k, 2))), 'each token on the partition predicted');
});
