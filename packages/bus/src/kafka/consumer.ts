import type { Batch, Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { Config, Logger } from '@chatlytics/core';
import type { BatchHandler, ConsumedMessage, ConsumerHandle } from '../types.js';
import { deliverUntilAccepted, type BackoffOptions } from '../delivery.js';
import type { BusMetrics } from '../metrics.js';
import { toUnavailable } from './client.js';
import type { KafkaAdmin } from './admin.js';

export function toConsumedMessages(batch: Batch): ConsumedMessage[] {
  return batch.messages.map((m) => ({
    partition: batch.partition,
    offset: m.offset,
    key: m.key ? m.key.toString('utf8') : null,
    value: m.value ?? Buffer.alloc(0),
    timestamp: Number(m.timestamp),
  }));
}

/**
 * Consumer settings shared by the group consumer and replay's throwaway consumers.
 * sessionTimeoutMs (default 30 s): a member heartbeats between a batch's attempts and every
 * heartbeatInterval during one (an attempt may wait minutes on a ClickHouse that refuses). It
 * is also how long a rejoin waits for a member that vanished without leaving, so tests lower it.
 */
export function consumerConfig(groupId: string, sessionTimeoutMs = 30_000) {
  return {
    groupId,
    sessionTimeout: sessionTimeoutMs,
    // A tenth of the session (3 s at the default, Kafka's own ratio): several heartbeats
    // may be lost before the member is declared dead.
    heartbeatInterval: Math.floor(sessionTimeoutMs / 10),
    // How long a fetch waits at the broker for new data: bounds tail latency and how fast stop() returns.
    maxWaitTimeInMs: 500,
  };
}

export interface KafkaConsumerDeps {
  kafka: Kafka;
  cfg: Config['kafka'];
  admin: KafkaAdmin;
  log: Logger;
  metrics: BusMetrics;
  backoff: BackoffOptions;
  partitionsConsumedConcurrently: number;
  sessionTimeoutMs?: number;
}

/**
 * Group member with manual commits. Per partition kafkajs hands batches in order and one at
 * a time (different partitions run concurrently); a batch's last offset + 1 is committed
 * only after the handler resolved. A rejected batch is redelivered in place, after a back-off,
 * with heartbeats in between, until it is accepted, the partition is revoked or we stop.
 */
export async function startKafkaConsumer(deps: KafkaConsumerDeps, handler: BatchHandler): Promise<ConsumerHandle> {
  const { cfg, log, metrics } = deps;
  await deps.admin.ensureTopics();
  const settings = consumerConfig(cfg.groupId, deps.sessionTimeoutMs);
  const consumer: Consumer = deps.kafka.consumer(settings);
  const abort = new AbortController();
  consumer.on(consumer.events.CRASH, (e) => {
    log.error({ err: e.payload.error, restart: e.payload.restart, groupId: cfg.groupId }, 'kafka consumer crashed');
  });
  // Partitions this member was (re)assigned whose first batch was not accepted yet. Every join
  // is a new assignment: even a partition kept across the rebalance may have been another
  // member's meanwhile (this one was expelled after a missed session timeout, then rejoined).
  // Revoked partitions need nothing here: their in-flight batch either completes (its rows
  // are stored, so committing them is harmless) or stops without committing (isStale).
  const freshlyAssigned = new Set<number>();
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    const partitions = e.payload.memberAssignment[cfg.topic] ?? [];
    freshlyAssigned.clear();
    for (const p of partitions) freshlyAssigned.add(p);
    metrics.rebalances.inc({ bus: 'kafka' });
    log.info({ groupId: cfg.groupId, memberId: e.payload.memberId, partitions, durationMs: e.payload.duration }, 'kafka partitions assigned');
  });

  const eachBatch = async (payload: EachBatchPayload) => {
    const { batch } = payload;
    if (batch.isEmpty()) return;
    const firstAfterAssignment = freshlyAssigned.has(batch.partition);
    const consumed = { stream: 'events' as const, partition: batch.partition, messages: toConsumedMessages(batch), firstAfterAssignment };
    const accepted = await deliverUntilAccepted(handler, consumed, {
      backoff: deps.backoff, log, signal: abort.signal,
      shouldContinue: () => payload.isRunning() && !payload.isStale(),
      whileWaiting: () => payload.heartbeat(),
      // kafkajs heartbeats only when asked (tulios/kafkajs#447): without this, an attempt waiting
      // on a refused insert longer than the session timeout got the member expelled and the
      // group rebalanced, over and over, for as long as ClickHouse was down.
      duringAttempt: { intervalMs: settings.heartbeatInterval, beat: () => payload.heartbeat() },
      onDelivered: (b) => metrics.consumed.inc({ bus: 'kafka', stream: 'events' }, b.messages.length),
    });
    // Not accepted (stopping or revoked): leave the offset where it is, whoever fetches next redelivers.
    if (!accepted) return;
    freshlyAssigned.delete(batch.partition);
    const last = batch.lastOffset();
    payload.resolveOffset(last);
    try {
      // The payload's commit, not consumer.commitOffsets: the latter silently skips the commit
      // once stop() began, which would lose the commit of a batch the handler already accepted.
      await payload.commitOffsetsIfNecessary({
        topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: (BigInt(last) + 1n).toString() }] }],
      });
      metrics.committed.inc({ bus: 'kafka' }, consumed.messages.length);
    } catch (err) {
      // Offsets are cumulative: the next successful commit covers this batch. If the partition
      // moved meanwhile, its new owner redelivers from the last commit (at-least-once).
      log.warn({ err, partition: batch.partition, offset: last }, 'kafka offset commit failed');
    }
    // A heartbeat error (rebalance in progress) propagates: kafkajs then rejoins the group.
    await payload.heartbeat();
  };

  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [cfg.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      // We resolve offsets ourselves, and only for accepted batches.
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: deps.partitionsConsumedConcurrently,
      eachBatch,
    });
  } catch (err) {
    await consumer.disconnect().catch(() => undefined);
    throw toUnavailable(err, 'consumer start');
  }

  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        abort.abort();
        // Waits for in-flight eachBatch calls (now returning promptly) and leaves the group.
        await consumer.disconnect();
      })();
      return stopping;
    },
  };
}
