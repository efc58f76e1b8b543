import type { ConsumedBatch, ConsumerHandle, EventBus } from '@chatlytics/bus';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { createMetricsRegistry, type Config, type Logger, type Registry } from '@chatlytics/core';
import { alreadyStarted } from './errors.js';
import { InsertBuffer, type InsertBufferOptions } from './insert-buffer.js';
import { createConsumerMetrics, registerLagGauge } from './metrics.js';
import { RecentIds } from './recent-ids.js';
import { DEFAULT_BACKOFF, type BackoffOptions } from './retry.js';
import { segmentKey, toSegment } from './segment.js';
import { createWriter } from './writer.js';

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
}

/**
 * The consumer pipeline: bus batches → per-message steps (decode, validate, enrich) → the
 * shared insert buffer → one INSERT per flush → handlers resolve → offsets commit.
 */
export function createConsumer(deps: ConsumerDeps): Consumer {
  const { bus, clickhouse } = deps;
  const log = deps.log.child({ component: 'consumer' });
  const options = { ...DEFAULT_CONSUMER_OPTIONS, ...deps.options };
  const registry = deps.registry ?? createMetricsRegistry();
  const metrics = createConsumerMetrics(registry);
  const counts = { flushes: 0, batches: 0, messages: 0, rowsWritten: 0, duplicates: 0, rejected: 0, dropped: 0, failedBatches: 0, fencedBatches: 0 };
  let lastFlushAt: Date | null = null;
  let handle: ConsumerHandle | undefined;
  let stopRequestedAt: number | undefined;

  const writer = createWriter({
    clickhouse, bus, log, metrics,
    recent: new RecentIds(options.recentIds),
    recordRejects: true,
    tokenPrefix: 'consumer',
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

  /**
   * Per partition: the offset its next batch should start at, and whether batches must still
   * be fenced. A batch is trusted (not fenced) only when it starts exactly where the previous
   * batch this process was handed ends AND fencing is off. Fencing is on after a start or a
   * (re)assignment (a crash or the partition's previous owner may have left rows inserted but
   * never committed), after any failed
   * batch, and while fenced batches keep finding their last row already stored (the previous
   * owner got further than the committed offset). It goes off when a fenced batch's last row
   * was not stored yet: everything after it is new. The bus reads ahead (the next batch is
   * handed over before this one is written), so `expected` moves at hand-over, not at the end.
   */
  const partitions = new Map<string, { expected: bigint; fencing: boolean }>();

  async function handleBatch(batch: ConsumedBatch): Promise<void> {
    if (batch.messages.length === 0) return;
    const key = segmentKey(batch);
    // A partition (re)assigned by a Kafka rebalance starts over as after a restart: fenced.
    const state = batch.firstAfterAssignment ? undefined : partitions.get(key);
    const fenced = state === undefined || state.fencing || BigInt(batch.messages[0].offset) !== state.expected;
    const segment = toSegment(batch, fenced);
    partitions.set(key, { expected: BigInt(segment.lastOffset) + 1n, fencing: state?.fencing ?? true });
    counts.batches++;
    counts.messages += batch.messages.length;
    counts.dropped += segment.dropped;
    metrics.decoded.inc({ path: 'canonical' }, segment.canonical);
    metrics.decoded.inc({ path: 'general' }, batch.messages.length - segment.dropped - segment.canonical);
    if (fenced) counts.fencedBatches++;
    try {
      if (segment.rowCount > 0 || segment.rejects.length > 0) await buffer.add(segment);
    } catch (err) {
      counts.failedBatches++;
      partitions.delete(key);
      log.error({ err, partition: batch.partition, firstOffset: segment.firstOffset, lastOffset: segment.lastOffset }, 'batch not written: left uncommitted for redelivery');
      throw err;
    }
    const current = partitions.get(key);
    if (fenced && current) current.fencing = segment.tailAlreadyStored === true;
  }

  return {
    async start() {
      if (handle) throw alreadyStarted();
      registerLagGauge(registry, () => bus.lag());
      stopRequestedAt = undefined;
      buffer = newBuffer();
      handle = await bus.consume(handleBatch);
      log.info({ bus: bus.kind, clickhouse: clickhouse.kind, maxRows: options.maxRows, maxAgeMs: options.maxAgeMs }, 'consumer started');
    },
    async stop() {
      if (!handle) return;
      stopRequestedAt = Date.now();
      // Waiting for size or age now would only delay the shutdown: write what is here.
      buffer.flushNow();
      await handle.stop();
      await buffer.drained();
      handle = undefined;
      log.info({ ...counts }, 'consumer stopped');
    },
    stats() {
      return { running: handle !== undefined, ...counts, bufferedRows: buffer.size, lastFlushAt: lastFlushAt?.toISOString() ?? null };
    },
  };
}
