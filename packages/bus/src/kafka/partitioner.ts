import { Partitioners, type ICustomPartitioner, type PartitionerArgs } from 'kafkajs';

/** Tokens remembered per topic; cleared wholesale when full (a flood of tokens costs what no memo would). */
const MEMO_KEYS = 10_000;

/**
 * kafkajs' DefaultPartitioner (murmur2 of the key modulo the partition count, as the Java
 * client), remembering each key's answer. Why: a visitor's token is the key of every event
 * they send, and the partitioner ran murmur2 in JavaScript plus a filter over the partition
 * list per message, ~2 µs of the ingest's CPU per event on Kafka (CPU profile, single broker).
 * For a key the default's answer depends only on the key and the number of partitions, so a
 * memo per topic, dropped when that number changes, answers exactly as it would.
 */
export const MemoizedDefaultPartitioner: ICustomPartitioner = () => {
  const partition = Partitioners.DefaultPartitioner();
  const topics = new Map<string, { partitions: number; byKey: Map<string, number> }>();
  return (args: PartitionerArgs) => {
    const { topic, partitionMetadata, message } = args;
    // An explicit partition, no key or a Buffer key: the default's own rules, unremembered.
    if ((message.partition !== null && message.partition !== undefined) || typeof message.key !== 'string') return partition(args);
    let memo = topics.get(topic);
    if (memo === undefined || memo.partitions !== partitionMetadata.length) {
      memo = { partitions: partitionMetadata.length, byKey: new Map() };
      topics.set(topic, memo);
    }
    let p = memo.byKey.get(message.key);
    if (p === undefined) {
      p = partition(args);
      if (memo.byKey.size >= MEMO_KEYS) memo.byKey.clear();
      memo.byKey.set(message.key, p);
    }
    return p;
  };
};

/** Per topic, the partitions a producer's partitioner assigned messages to. */
export type AssignedPartitions = Map<string, Set<number>>;

/** Wraps a partitioner so every answer is noted in `assigned` (the caller clears it per send). */
export function recordingPartitioner(inner: ICustomPartitioner, assigned: AssignedPartitions): ICustomPartitioner {
  return () => {
    const partition = inner();
    return (args: PartitionerArgs) => {
      const p = partition(args);
      let set = assigned.get(args.topic);
      if (set === undefined) assigned.set(args.topic, (set = new Set()));
      set.add(p);
      return p;
    };
  };
}
