import { Partitioners, type Admin } from 'kafkajs';
import { sleep } from '../delivery.js';

/**
 * Operator actions the runbook (services/consumer/README.md) drives through
 * scripts/kafka/ops.ts; each is exercised on the real broker by test/kafka-operations.test.ts.
 */

/** The partition the producer picks for a key among `partitions` (kafkajs' DefaultPartitioner: murmur2, as the Java client). */
export function partitionOf(key: string, partitions: number): number {
  const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({ partitionId, partitionErrorCode: 0, leader: 0, replicas: [0], isr: [0] }));
  return Partitioners.DefaultPartitioner()({ topic: 'any', partitionMetadata, message: { key, value: null } });
}

/** Keys (user tokens) whose partition changes when a topic grows from `from` to `to` partitions: their order breaks once. */
export function movedKeys(keys: readonly string[], from: number, to: number): { key: string; from: number; to: number }[] {
  return keys.map((key) => ({ key, from: partitionOf(key, from), to: partitionOf(key, to) })).filter((k) => k.from !== k.to);
}

export async function partitionCount(admin: Admin, topic: string): Promise<number> {
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  return meta.topics[0]?.partitions.length ?? 0;
}

/**
 * Grows the topic to `count` partitions (Kafka never shrinks one). Producers and the group notice
 * within their metadata refresh. Returns once the broker's metadata shows them: the controller
 * acknowledges the request before every broker's metadata cache has the new partitions, and a
 * read right after it could still see the old count.
 */
export async function addPartitions(admin: Admin, topic: string, count: number, waitMs = 10_000): Promise<void> {
  const current = await partitionCount(admin, topic);
  if (count <= current) throw new Error(`${topic} has ${current} partitions; a topic can only grow (asked for ${count})`);
  await admin.createPartitions({ topicPartitions: [{ topic, count }] });
  for (const deadline = Date.now() + waitMs; ;) {
    const seen = await partitionCount(admin, topic);
    if (seen >= count) return;
    if (Date.now() > deadline) throw new Error(`${topic}: ${count} partitions asked for, the metadata still shows ${seen} after ${waitMs} ms`);
    await sleep(100);
  }
}

/**
 * Moves the group's committed offset of one partition to `offset`, e.g. past a batch that
 * crashes every consumer process. Kafka accepts it only while the group has no member: stop the
 * consumers first. The skipped events stay on the topic for `replay --from` once fixed.
 */
export async function skipTo(admin: Admin, groupId: string, topic: string, partition: number, offset: bigint): Promise<{ from: bigint | null }> {
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const before = committed?.partitions.find((p) => p.partition === partition)?.offset;
  await admin.setOffsets({ groupId, topic, partitions: [{ partition, offset: offset.toString() }] });
  return { from: before !== undefined && Number(before) >= 0 ? BigInt(before) : null };
}
