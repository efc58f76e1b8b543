import { randomUUID } from 'node:crypto';
import type { EachBatchPayload, Kafka } from 'kafkajs';
import type { Config, Logger } from '@chatlytics/core';
import type { ReplayOptions } from '../types.js';
import { deliverUntilAccepted, type BackoffOptions } from '../delivery.js';
import { toUnavailable } from './client.js';
import type { KafkaAdmin, PartitionOffsets } from './admin.js';
import { consumerConfig, toConsumedMessages } from './consumer.js';

export interface KafkaReplayDeps {
  kafka: Kafka;
  cfg: Config['kafka'];
  admin: KafkaAdmin;
  log: Logger;
  backoff: BackoffOptions;
  maxAttempts: number;
  signal: AbortSignal;
  sessionTimeoutMs?: number;
}

interface Range { start: bigint; end: bigint }

/** Per partition, the first offset whose timestamp is >= `fromTime` (the end when there is none), never below the log start. */
async function startOffsets(admin: KafkaAdmin, topic: string, fromTime: number, ends: PartitionOffsets[]): Promise<Map<number, bigint>> {
  const byTime = await admin.offsetsForTime(topic, fromTime);
  return new Map(ends.map((p) => {
    const found = byTime.get(p.partition);
    return [p.partition, found !== undefined && found > p.low ? found : p.low];
  }));
}

/**
 * Replay reads with a throwaway consumer group (kafkajs has no group-less, assign-based
 * consumer): a fresh random group id, seeked to the start offsets, never committing, deleted
 * afterwards (best effort). The real group's offsets are never touched. It stops at the end
 * offsets captured when replay was called, so it terminates while producers keep writing.
 */
export async function replayKafka(deps: KafkaReplayDeps, opts: ReplayOptions): Promise<number> {
  const { admin, log } = deps;
  const topic = opts.stream === 'events' ? deps.cfg.topic : deps.cfg.dlqTopic;
  const ranges = new Map<number, Range>();
  try {
    await admin.ensureTopics();
    const ends = await admin.topicOffsets(topic);
    const starts = await startOffsets(admin, topic, opts.fromTime, ends);
    for (const p of ends) {
      const start = starts.get(p.partition) ?? p.low;
      if (start < p.high) ranges.set(p.partition, { start, end: p.high });
    }
  } catch (err) {
    throw toUnavailable(err, 'replay offsets');
  }
  if (ranges.size === 0) return 0;

  const groupId = `${deps.cfg.groupId}.replay.${randomUUID()}`;
  const consumer = deps.kafka.consumer(consumerConfig(groupId, deps.sessionTimeoutMs));
  const abort = new AbortController();
  const onOuterAbort = () => abort.abort();
  deps.signal.addEventListener('abort', onOuterAbort, { once: true });
  let delivered = 0;
  let failure: unknown;
  const finished = new Promise<void>((resolve) => {
    if (abort.signal.aborted) resolve();
    abort.signal.addEventListener('abort', () => resolve(), { once: true });
  });

  const eachBatch = async ({ batch, resolveOffset }: EachBatchPayload) => {
    const range = ranges.get(batch.partition);
    if (!range || batch.isEmpty()) return;
    // The offset filter also covers a fetch that started before the seek took effect.
    const messages = toConsumedMessages(batch).filter((m) => {
      const o = BigInt(m.offset);
      return o >= range.start && o < range.end && m.timestamp >= opts.fromTime;
    });
    if (messages.length > 0) {
      try {
        const accepted = await deliverUntilAccepted(opts.handler, { stream: opts.stream, partition: batch.partition, messages }, {
          backoff: deps.backoff, log, signal: abort.signal, maxAttempts: deps.maxAttempts,
        });
        if (!accepted) return;
      } catch (err) {
        failure = err;
        abort.abort();
        return;
      }
      delivered += messages.length;
    }
    resolveOffset(batch.lastOffset());
    range.start = BigInt(batch.lastOffset()) + 1n;
    if (BigInt(batch.lastOffset()) >= range.end - 1n) {
      ranges.delete(batch.partition);
      if (ranges.size === 0) abort.abort();
    }
  };

  // Seek on every join, not once after run(): a crash-restart (a cluster that just came back)
  // makes a new group member that starts from nothing; `start` follows what was delivered.
  consumer.on(consumer.events.GROUP_JOIN, () => {
    for (const [partition, range] of ranges) consumer.seek({ topic, partition, offset: range.start.toString() });
  });
  consumer.on(consumer.events.CRASH, (e) => {
    // kafkajs gives up on this consumer (no restart): the replay could never finish, so it fails.
    if (!e.payload.restart) { failure ??= toUnavailable(e.payload.error, 'replay'); abort.abort(); }
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch });
    await finished;
  } catch (err) {
    failure ??= toUnavailable(err, 'replay');
  } finally {
    deps.signal.removeEventListener('abort', onOuterAbort);
    abort.abort();
    await consumer.disconnect().catch((err) => log.warn({ err, groupId }, 'replay consumer did not disconnect cleanly'));
    await admin.deleteGroup(groupId);
  }
  if (failure) throw failure;
  return delivered;
}
