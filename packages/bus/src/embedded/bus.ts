import fs from 'node:fs/promises';
import path from 'node:path';
import { acquireDataDirLock, type Logger, type Registry } from '@chatlytics/core';
import type { BatchHandler, BusMessage, ConsumerHandle, EventBus, ReplayOptions } from '../types.js';
import { BusInUseError, BusUnavailableError, BusUsageError } from '../errors.js';
import { createBusMetrics } from '../metrics.js';
import { DEFAULT_BACKOFF, type BackoffOptions } from '../delivery.js';
import { SegmentedLog, type Retention } from './log.js';
import { GroupCommitter } from './group-commit.js';
import { OffsetStore } from './offsets.js';
import { startEmbeddedConsumer } from './consumer.js';
import { replayLog } from './replay.js';
import { LogReader } from './reader.js';

export interface EmbeddedBusOptions {
  /** DATA_DIR/bus: holds `events/`, `dead-letter/`, `consumer-offsets.json` and a `.lock`. */
  dir: string;
  log: Logger;
  registry?: Registry;
  /** Default 16 MiB: big enough that rolling is rare, small enough that clean-up frees space in useful steps. */
  segmentBytes?: number;
  /** Caps one group-commit write + fsync (default 1 MiB). */
  groupCommitBytes?: number;
  /** Caps one group-commit write + fsync in messages (default 8,192). */
  groupCommitMessages?: number;
  /** Defaults: keep fully consumed segments 24 h, or less once the stream exceeds 1 GiB. */
  retention?: Partial<Retention>;
  maxBatchMessages?: number;
  maxBatchBytes?: number;
  /** Batches handed to the consumer before the oldest is committed (default 2). */
  readAhead?: number;
  retryBackoff?: BackoffOptions;
  /** A replay gives up after its handler rejected the same batch this many times (default 5). */
  replayMaxAttempts?: number;
}

export interface EmbeddedEventBus extends EventBus {
  readonly kind: 'embedded';
  /** Data fsyncs so far, per stream (group commit keeps them far below the publish count). */
  stats(): { eventsFsyncs: number; deadLetterFsyncs: number; eventSegments: number };
}

/** One open log per directory per process; the DATA_DIR lock (a listening socket) guards against other processes. */
const openDirs = new Set<string>();

/**
 * The embedded durable event log, for one-process deployments (`npm start`). A single
 * partition (0) is enough: one process is the only producer and the only consumer, so
 * partitions would add no parallelism, and one total order keeps every key's order trivially.
 * Offsets are plain numbers inside (2^53 records is centuries at any realistic rate).
 */
export async function createEmbeddedBus(opts: EmbeddedBusOptions): Promise<EmbeddedEventBus> {
  const dir = path.resolve(opts.dir);
  if (openDirs.has(dir)) throw new BusInUseError(`embedded bus ${dir} is already open in this process`);
  await fs.mkdir(dir, { recursive: true });
  let lock: { release(): Promise<void> };
  try {
    lock = await acquireDataDirLock(dir, 'event-bus');
  } catch (err) {
    throw new BusInUseError((err as Error).message, { cause: err });
  }
  openDirs.add(dir);
  try {
    return await openBus(dir, opts, async () => { openDirs.delete(dir); await lock.release(); });
  } catch (err) {
    await lock.release();
    openDirs.delete(dir);
    throw err;
  }
}

/**
 * The batch limits a consumer gets unless it sets its own (the benches size their inserts by them).
 * Each batch becomes one ClickHouse insert: a backlog drains in inserts of up to 100k rows,
 * while live traffic still arrives in small, fresh batches. Why that large: every insert is a
 * part in `events` and in each table the statistics' views feed, which background merges
 * rewrite, and each insert pays the views' fixed cost once; on 2 cores that CPU is taken from
 * the consumer itself. bench:pipeline, 7 pairs alternated: 11.6 against 14.2 µs of CPU per
 * event (medians) at 100k rather than 50k rows per batch. A read runs across log segments
 * (reader.ts). 80 MiB holds 100k of the bench's 770-byte events and bounds what a batch holds
 * in memory and what a redelivery re-reads. Not larger: at 200k a backlog held 420–470 MB
 * more (the consumer's body pool keeps no 256 MiB body) and bench:pipeline was slower in both
 * rounds tried.
 * One partition would mean one batch at a time. Two in flight: the consumer writes two
 * flushes at once (its concurrentWrites); under backlog the insert is the slower side, and
 * two of them overlapping keep both cores busy. At this size a third batch in flight (decoded
 * while two insert) bought nothing bench:pipeline could show, for another 80 MiB.
 * Each batch in flight holds its read chunks (≤ maxBatchBytes) and its rows (a little less).
 */
export const EMBEDDED_BATCH_DEFAULTS = { maxBatchMessages: 100_000, maxBatchBytes: 80 * 1024 * 1024, readAhead: 2 } as const;

async function openBus(dir: string, opts: EmbeddedBusOptions, release: () => Promise<void>): Promise<EmbeddedEventBus> {
  const log = opts.log;
  const metrics = createBusMetrics(opts.registry);
  const segmentBytes = opts.segmentBytes ?? 16 * 1024 * 1024;
  const retention: Retention = { maxAgeMs: 24 * 3600_000, maxBytes: 1024 ** 3, ...opts.retention };
  const limits = {
    maxBatchMessages: opts.maxBatchMessages ?? EMBEDDED_BATCH_DEFAULTS.maxBatchMessages,
    maxBatchBytes: opts.maxBatchBytes ?? EMBEDDED_BATCH_DEFAULTS.maxBatchBytes,
    readAhead: Math.max(1, opts.readAhead ?? EMBEDDED_BATCH_DEFAULTS.readAhead),
  };
  const backoff = opts.retryBackoff ?? DEFAULT_BACKOFF;
  const events = await SegmentedLog.open({ dir: path.join(dir, 'events'), segmentBytes, log });
  const deadLetters = await SegmentedLog.open({ dir: path.join(dir, 'dead-letter'), segmentBytes, log });
  const offsets = await OffsetStore.open(dir);
  if (offsets.committed > events.endOffset) {
    // Only possible if the disk lost acknowledged data (a device lying about fsync).
    log.error({ committed: offsets.committed, endOffset: events.endOffset }, 'embedded bus: committed offset beyond the log end; resuming at the end');
    await offsets.commit(events.endOffset);
  }
  const groupCommit = { maxBatchBytes: opts.groupCommitBytes ?? 1024 * 1024, maxBatchMessages: opts.groupCommitMessages ?? 8192 };
  const committers = {
    events: new GroupCommitter(events, groupCommit, (n) => metrics.fsyncBatchSize.observe({ stream: 'events' }, n)),
    'dead-letter': new GroupCommitter(deadLetters, groupCommit, (n) => metrics.fsyncBatchSize.observe({ stream: 'dead-letter' }, n)),
  };
  const closing = new AbortController();
  let consumer: ConsumerHandle | undefined;
  let closed = false;
  const replays = new Set<Promise<unknown>>();
  let oldest: { offset: number; timestamp: number } | undefined;

  const publishTo = async (stream: 'events' | 'dead-letter', messages: BusMessage[]) => {
    const started = process.hrtime.bigint();
    await committers[stream].append(messages);
    metrics.published.inc({ bus: 'embedded', stream }, messages.length);
    metrics.publishSeconds.observe({ bus: 'embedded', stream }, Number(process.hrtime.bigint() - started) / 1e9);
    // Dead letters have no consumer group: the whole stream counts as consumed for retention.
    if (stream === 'dead-letter') await deadLetters.deleteConsumedSegments(deadLetters.endOffset, retention);
  };

  return {
    kind: 'embedded',
    publish: (messages) => publishTo('events', messages),
    publishDeadLetter: (messages) => publishTo('dead-letter', messages),

    // Open means recovered and writable: nothing is left for a first publish to set up.
    async prepare() {
      if (closed) throw new BusUnavailableError('embedded bus is closed');
    },

    async consume(handler: BatchHandler) {
      if (closed) throw new BusUnavailableError('embedded bus is closed');
      if (consumer) throw new BusUsageError('the embedded bus has one consumer group member; stop the current consumer first');
      const handle = startEmbeddedConsumer({
        events, offsets, log, metrics, limits, backoff,
        afterCommit: async (committed) => { await events.deleteConsumedSegments(committed, retention); },
      }, handler);
      consumer = handle;
      return {
        async stop() {
          await handle.stop();
          if (consumer === handle) consumer = undefined;
        },
      };
    },

    async replay(replayOpts: ReplayOptions) {
      if (closed) throw new BusUnavailableError('embedded bus is closed');
      const stream = replayOpts.stream === 'events' ? events : deadLetters;
      const run = replayLog(stream, replayOpts, {
        log, limits, backoff, maxAttempts: opts.replayMaxAttempts ?? 5, signal: closing.signal,
      });
      replays.add(run);
      try { return await run; } finally { replays.delete(run); }
    },

    async lag() {
      return events.endOffset - offsets.committed;
    },

    async lagReport() {
      const committed = offsets.committed;
      const messages = events.endOffset - committed;
      if (messages === 0) return { partitions: [{ partition: 0, messages }], oldestUncommittedAt: null, retentionMs: null };
      // The record at the committed offset does not change: read it once per committed offset.
      if (oldest?.offset !== committed) {
        const reader = new LogReader(events, committed, log);
        try {
          const [record] = await reader.read({ maxRecords: 1, maxBytes: 1, endOffset: committed + 1 });
          oldest = { offset: committed, timestamp: record?.timestamp ?? Date.now() };
        } finally {
          await reader.close();
        }
      }
      // retentionMs null: the log never deletes a record the consumer has not committed.
      return { partitions: [{ partition: 0, messages }], oldestUncommittedAt: oldest.timestamp, retentionMs: null };
    },

    async ping() {
      if (closed) throw new BusUnavailableError('embedded bus is closed');
      const failed = events.failed ?? deadLetters.failed;
      if (failed) throw failed;
    },

    async close() {
      if (closed) return;
      closed = true;
      closing.abort();
      await consumer?.stop();
      consumer = undefined;
      await Promise.allSettled(replays);
      await Promise.all([committers.events.close(), committers['dead-letter'].close()]);
      await Promise.all([events.close(), deadLetters.close()]);
      await release();
    },

    stats() {
      return { eventsFsyncs: events.fsyncs, deadLetterFsyncs: deadLetters.fsyncs, eventSegments: events.segmentCount() };
    },
  };
}
