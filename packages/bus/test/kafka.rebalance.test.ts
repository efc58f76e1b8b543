import t from 'tap';
import { loadConfig } from '@chatlytics/core';
import { serverUnderTest } from '@chatlytics/core/testing';
import { createKafkaBus, type ConsumedBatch, type EventBus } from '../src/index.js';
import { Collector, idOf, message, testBackoff, testLog } from './helpers.js';

// Against a real broker (CI: scripts/kafka/run.sh): two members of one group share a
// 6-partition topic; every (re)assignment marks the partition's first batch, so the consumer
// can fence it like a batch after a restart.
const server = serverUnderTest('KAFKA_BROKERS');

const keys = Array.from({ length: 24 }, (_, i) => `tok_rebal${String(i).padStart(3, '0')}`);
const firstPerPartition = (deliveries: ConsumedBatch[]) => {
  const first = new Map<number, ConsumedBatch>();
  for (const b of deliveries) if (!first.has(b.partition)) first.set(b.partition, b);
  return first;
};

t.test('a member joining the group: both members see their first batch of each (re)assigned partition flagged', { skip: server.skip }, async (t) => {
  const base = loadConfig(process.env).kafka;
  const scope = `bus-rebalance-${process.pid}-${Date.now().toString(36)}`;
  const kafka = { ...base, topic: scope, dlqTopic: `${scope}-dlq`, groupId: `${scope}-group`, partitions: 6 };
  const open = () => createKafkaBus({ kafka, log: testLog, retryBackoff: testBackoff, sessionTimeoutMs: 6000 });
  const buses: EventBus[] = [open(), open()];
  t.teardown(() => Promise.all(buses.map((b) => b.close())));
  const [a, b] = buses;

  await a.publish(keys.map((k, i) => message(scope, k, i)));
  const ca = new Collector();
  const first = await a.consume(ca.handler);
  await ca.until(keys.length);
  const alone = firstPerPartition(ca.deliveries);
  t.equal(alone.size, 6, 'the lone member was handed all 6 partitions');
  t.ok([...alone.values()].every((batch) => batch.firstAfterAssignment === true), 'first batch of every partition flagged');
  t.ok(ca.deliveries.filter((d) => !alone.has(d.partition) || alone.get(d.partition) !== d).every((d) => !d.firstAfterAssignment),
    'later batches are not flagged');
  // The handler resolved; its commit follows a moment later.
  for (const deadline = Date.now() + 30_000; Date.now() < deadline && (await a.lag()) > 0;) await new Promise((r) => setTimeout(r, 100));
  t.equal(await a.lag(), 0, 'everything committed before the second member joins');

  const cb = new Collector();
  const before = ca.deliveries.length;
  const second = await b.consume(cb.handler);
  // Keep publishing until the rebalance handed B some partitions and both consumed what was sent.
  let seq = keys.length;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && (cb.accepted.length === 0 || ca.deliveries.length === before)) {
    await a.publish(keys.map((k) => message(scope, k, seq++)));
    await new Promise((r) => setTimeout(r, 250));
  }
  const sent = seq;
  const settle = Date.now() + 60_000;
  while (Date.now() < settle && new Set([...ca.accepted, ...cb.accepted].map(idOf)).size < sent) await new Promise((r) => setTimeout(r, 100));
  await Promise.all([first.stop(), second.stop()]);

  const ids = [...ca.accepted, ...cb.accepted].map(idOf);
  t.equal(new Set(ids).size, sent, 'every message delivered to one of the members');
  const bFirst = firstPerPartition(cb.deliveries);
  t.ok(bFirst.size > 0 && bFirst.size < 6, `the newcomer got some of the partitions (${bFirst.size})`);
  t.ok([...bFirst.values()].every((batch) => batch.firstAfterAssignment === true), "the newcomer's first batch of each partition is flagged");
  const aAfter = firstPerPartition(ca.deliveries.slice(before));
  t.ok([...aAfter.keys()].every((p) => !bFirst.has(p)), 'no partition is consumed by both members after the rebalance');
  t.ok([...aAfter.values()].every((batch) => batch.firstAfterAssignment === true), "after rejoining, A's first batch of each kept partition is flagged again");
});
