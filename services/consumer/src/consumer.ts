import type { ConsumedBatch, ConsumerHandle, EventBus } from '@chatlytics/bus';
import { clickhouseTime, repairDays, type ClickHouseEngine } from '@chatlytics/clickhouse';
import path from 'node:path';
import { createMetricsRegistry, type Config, type Logger, type Registry } from '@chatlytics/core';
import { alreadyStarted } from './errors.js';
import { InsertBuffer, type InsertBufferOptions } from './insert-buffer.js';
import { createConsumerMetrics, registerLagMetrics } from './metrics.js';
import { createLagProbe, type LagStatus } from './lag.js';
import { RecentIds } from './recent-ids.js';
import { DEFAULT_BACKOFF, type BackoffOptions } from './retry.js';
import { toSegment } from './segment.js';
import { createWriter } from './writer.js';
import { createFencing } from './fencing.js';
import { createMessagePipeline, createMessageSteps } from './pipeline.js';
import { createErasedTokensFeed } from './erased-step.js';
import { createSegmentIds } from './segment-ids.js';
import { createInsertIntents, NO_INTENTS, type InsertIntents } from './insert-intents.js';

export interface ConsumerOptions extends Omit<InsertBufferOptions, 'write' | 'now'> {
  backoff: BackoffOptions;
  /** How long stop() keeps retrying an unavailable ClickHouse before leaving the batch uncommitted. */
  stopGraceMs: number;
  /** Event ids remembered per generation for the in-memory duplicate check (2 generations). */
  recentIds: number;
}

export const DEFAULT_CONSUMER_OPTIONS: ConsumerOptions = {
  maxRows: 100_000,
  // A quarter of a second: well inside the 2 s freshness target, yet at 5k events/s it
  // coalesces ~1,250 rows per insert (4 inserts/s), which keeps ClickHouse's part count low.
  maxAgeMs: 250,
  minRowsWhenAllWaiting: 2_000,
  activeWindowMs: 10_000,
  // Two INSERTs in flight: see InsertBufferOptions.concurrentWrites.
  concurrentWrites: 2,
  backoff: DEFAULT_BACKOFF,
  // Shorter than closeOnSignals' 15 s grace, so the process exits cleanly (uncommitted, redelivered).
  stopGraceMs: 10_000,
  // ~10 s of traffic at 10k events/s: a beacon retried by the browser comes back well within it.
  recentIds: 100_000,
};

export interface ConsumerDeps {
  config: Config;
  bus: EventBus;
  clickhouse: ClickHouseEngine;
  log: Logger;
  registry?: Registry;
  options?: Partial<ConsumerOptions>;
}

export interface ConsumerStats {
  running: boolean;
  /** INSERTs into events (one per flush of the shared buffer). */
  flushes: number;
  /** Bus batches handled. */
  batches: number;
  messages: number;
  rowsWritten: number;
  duplicates: number;
  rejected: number;
  /** Empty values (tombstones): nothing to store. */
  dropped: number;
  /** Batches handed back uncommitted (redelivered by the bus). */
  failedBatches: number;
  /** Batches whose rows were looked up in ClickHouse because they may be a redelivery. */
  fencedBatches: number;
  bufferedRows: number;
  lastFlushAt: string | null;
}

export interface Consumer {
  start(): Promise<void>;
  /** Flush what is buffered, let the in-flight batches commit, leave the group. */
  stop(): Promise<void>;
  stats(): ConsumerStats;
  /** The group's lag in messages and seconds, degraded past CONSUMER_LAG_ALERT_SECONDS. */
  lag(): Promise<LagStatus>;
}

/**
 * Inserts a previous life of this process began and never saw acknowledged (insert-intents.ts):
 * the days of the rows they stored get their aggregates computed again from `events`, before
 * anything is consumed, so no insert races the recomputation.
 */
async function completeInterruptedInserts(clickhouse: ClickHouseEngine, intents: InsertIntents, log: Logger): Promise<void> {
  for (const intent of intents.pending()) {
    const days = await clickhouse.query<{ chatbotId: string; day: string }>(
      'SELECT DISTINCT chatbot_id AS chatbotId, toString(toDate(received_at)) AS day FROM events '
        + "WHERE received_at >= {from:DateTime64(3, 'UTC')} AND received_at <= {to:DateTime64(3, 'UTC')} AND insert_key = {key:UInt64}",
      { from: clickhouseTime(intent.from), to: clickhouseTime(intent.to), key: intent.key });
    if (days.length > 0) {
      await repairDays(clickhouse, days, 0);
      log.warn({ insertKey: intent.key, days: days.length }, 'an insert interrupted by the last exit stored rows: their days were computed again');
    }
    intents.forget(intent);
  }
}

/**
 * The consumer: bus batches → per-message steps (pipeline.ts) → the shared insert buffer →
 * one INSERT per flush (writer.ts) → handlers resolve → the bus commits their offsets.
 */
export function createConsumer(deps: ConsumerDeps): Consumer {
  const { bus, clickhouse } = deps;
  const log = deps.log.child({ component: 'consumer' });
  const options = { ...DEFAULT_CONSUMER_OPTIONS, maxAgeMs: deps.config.consumerFlushMs ?? DEFAULT_CONSUMER_OPTIONS.maxAgeMs, ...deps.options };
  const registry = deps.registry ?? createMetricsRegistry();
  const metrics = createConsumerMetrics(registry);
  const counts = { flushes: 0, batches: 0, messages: 0, rowsWritten: 0, duplicates: 0, rejected: 0, dropped: 0, failedBatches: 0, fencedBatches: 0 };
  let lastFlushAt: Date | null = null;
  let handle: ConsumerHandle | undefined;
  let stopRequestedAt: number | undefined;
  const lagProbe = createLagProbe(bus, deps.config.consumerLagAlertSeconds);
  // The embedded ClickHouse dies with this process, possibly in the middle of an insert.
  const intents = clickhouse.kind === 'embedded'
    ? createInsertIntents(path.join(deps.config.dataDir, 'consumer', 'insert-intents', clickhouse.database))
    : NO_INTENTS;

  const writer = createWriter({
    clickhouse, bus, log, metrics,
    recent: new RecentIds(options.recentIds),
    recordRejects: true,
    tokenPrefix: 'consumer',
    intents,
    retry: {
      log,
      backoff: options.backoff,
      shouldGiveUp: () => stopRequestedAt !== undefined && Date.now() - stopRequestedAt > options.stopGraceMs,
      onRetry: (operation) => metrics.retries.inc({ operation }),
    },
  });
  // One buffer per start(): stop() switches the buffer to flush-at-once for good.
  const newBuffer = () => new InsertBuffer({
    ...options,
    async write(segments, trigger) {
      const summary = await writer.write(segments, trigger);
      counts.flushes++;
      counts.rowsWritten += summary.inserted;
      counts.duplicates += summary.duplicates;
      counts.rejected += summary.rejected;
      lastFlushAt = new Date();
    },
  });
  let buffer = newBuffer();

  const fencing = createFencing();
  const erased = createErasedTokensFeed(clickhouse, (err) => log.warn({ err }, 'erased tokens not read again: the last list stays in use'));
  const pipeline = createMessagePipeline(createMessageSteps(erased.list), metrics);
  const tokenIds = createSegmentIds({ clickhouse });

  async function handleBatch(batch: ConsumedBatch): Promise<void> {
    if (batch.messages.length === 0) return;
    // A partition (re)assigned by a Kafka rebalance starts over as after a restart: fenced, and
    // its token numbering read again (another process may have numbered meanwhile).
    if (batch.firstAfterAssignment) {
      fencing.forget(batch);
      void tokenIds.reset(batch);
    }
    const segment = toSegment(batch, fencing.mustFence(batch), pipeline);
    fencing.handedOver(segment);
    counts.batches++;
    counts.messages += batch.messages.length;
    counts.dropped += segment.dropped;
    metrics.decoded.inc({ path: 'canonical' }, segment.canonical);
    metrics.decoded.inc({ path: 'general' }, batch.messages.length - segment.dropped - segment.canonical);
    if (segment.fenced) counts.fencedBatches++;
    try {
      // Every row gets its token's id first; the partition's batches are numbered in turn.
      await tokenIds.assign(segment);
      if (segment.rowCount > 0 || segment.rejects.length > 0 || segment.orders.length > 0 || segment.refunds.length > 0) await buffer.add(segment, batch.abandoned);
    } catch (err) {
      counts.failedBatches++;
      fencing.forget(batch);
      log.error({ err, partition: batch.partition, firstOffset: segment.firstOffset, lastOffset: segment.lastOffset }, 'batch not written: left uncommitted for redelivery');
      throw err;
    }
    fencing.written(segment);
  }

  return {
    async start() {
      if (handle) throw alreadyStarted();
      await completeInterruptedInserts(clickhouse, intents, log);
      // Before the first message: an erased visitor's message is never stored again. A store
      // that does not answer now stores nothing either; the list is read again every few seconds.
      await erased.load().catch((err) => log.warn({ err }, 'erased tokens not read at start: read again shortly'));
      erased.start();
      registerLagMetrics(registry, lagProbe);
      stopRequestedAt = undefined;
      buffer = newBuffer();
      handle = await bus.consume(handleBatch);
      log.info({ bus: bus.kind, clickhouse: clickhouse.kind, maxRows: options.maxRows, maxAgeMs: options.maxAgeMs, minRowsWhenAllWaiting: options.minRowsWhenAllWaiting }, 'consumer started');
    },
    async stop() {
      if (!handle) return;
      stopRequestedAt = Date.now();
      // Waiting for size or age now would only delay the shutdown: write what is here.
      buffer.flushNow();
      await handle.stop();
      await buffer.drained();
      erased.stop();
      handle = undefined;
      log.info({ ...counts }, 'consumer stopped');
    },
    lag: () => lagProbe.status(),
    stats() {
      return { running: handle !== undefined, ...counts, bufferedRows: buffer.size, lastFlushAt: lastFlushAt?.toISOString() ?? null };
    },
  };
}
