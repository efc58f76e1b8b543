import { randomUUID } from 'node:crypto';
import type { ConsumedBatch, EventBus } from '@chatlytics/bus';
import { claimRunSlot, loadErasedTokens, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { createMetricsRegistry, type Logger, type Registry } from '@chatlytics/core';
import { parseReplayArgs, type ReplayStream } from './replay-args.js';
import { createConsumerMetrics } from './metrics.js';
import { RecentIds } from './recent-ids.js';
import { DEFAULT_BACKOFF, type BackoffOptions } from './retry.js';
import { toSegment } from './segment.js';
import { createSegmentIds } from './segment-ids.js';
import { createMessagePipeline, createMessageSteps } from './pipeline.js';
import { createWriter } from './writer.js';
import { unwrapDeadLetter } from './dead-letter.js';

export type { ReplayStream };

export interface ReplayDeps {
  bus: EventBus;
  clickhouse: ClickHouseEngine;
  from: Date;
  stream: ReplayStream;
  log: Logger;
  registry?: Registry;
  backoff?: BackoffOptions;
  /** How long the claim of a numbering slot waits for other claims (claimRunSlot's default); tests shorten it. */
  slotClaimSettleMs?: number;
}

export interface ReplaySummary {
  stream: ReplayStream;
  from: string;
  messages: number;
  inserted: number;
  /** Already stored (or repeated within the replay): left out. */
  duplicates: number;
  /** Still poison: counted, not recorded again. */
  rejected: number;
}

/**
 * Re-reads a stream from a point in time and re-inserts through the same steps and writer as
 * the consumer. Safe to run any number of times, also beside the running consumer: every
 * batch is fenced (its event ids are looked up and the stored ones left out), and the insert
 * tokens carry a per-run prefix, so a replay can restore rows that were lost from ClickHouse
 * instead of being taken for the original insert. Group offsets are not touched.
 */
export async function replay(deps: ReplayDeps): Promise<ReplaySummary> {
  const log = deps.log.child({ component: 'replay', stream: deps.stream });
  const summary: ReplaySummary = { stream: deps.stream, from: deps.from.toISOString(), messages: 0, inserted: 0, duplicates: 0, rejected: 0 };
  const metrics = createConsumerMetrics(deps.registry ?? createMetricsRegistry());
  // An erased visitor stays erased: the replay drops its messages as the consumer does.
  const erased = await loadErasedTokens(deps.clickhouse);
  const pipeline = createMessagePipeline(createMessageSteps(() => erased), metrics);
  const run = randomUUID();
  // New tokens among the replayed rows are numbered in a slot of this run's own (token-ids.ts).
  const slot = await claimRunSlot(deps.clickhouse, `replay:${run}`, deps.slotClaimSettleMs);
  const ids = createSegmentIds({ clickhouse: deps.clickhouse, slotOf: () => slot });
  const writer = createWriter({
    clickhouse: deps.clickhouse,
    bus: deps.bus,
    log,
    metrics,
    recent: new RecentIds(100_000),
    recordRejects: false,
    tokenPrefix: `replay:${run}`,
    retry: { log, backoff: deps.backoff ?? DEFAULT_BACKOFF, shouldGiveUp: () => false },
  });
  // A dead letter is our JSON wrapper: the original bytes go through the pipeline again.
  const unwrap = (batch: ConsumedBatch): ConsumedBatch => deps.stream === 'events' ? batch : {
    ...batch,
    // Field by field, not a spread: the embedded bus's messages are views with getters (record.ts).
    messages: batch.messages.map((m) => ({ partition: m.partition, offset: m.offset, key: m.key, timestamp: m.timestamp, value: unwrapDeadLetter(m.value) ?? m.value })),
  };
  log.info({ from: summary.from, slot }, 'replay started');
  await deps.bus.replay({
    stream: deps.stream,
    fromTime: deps.from.getTime(),
    // One insert per bus batch: a repair tool values simplicity over the consumer's coalescing.
    handler: async (batch) => {
      if (batch.messages.length === 0) return;
      summary.messages += batch.messages.length;
      const segment = toSegment(unwrap(batch), true, pipeline);
      await ids.assign(segment);
      const result = await writer.write([segment], 'size');
      summary.inserted += result.inserted;
      summary.duplicates += result.duplicates;
      summary.rejected += result.rejected;
    },
  });
  log.info({ ...summary }, 'replay finished');
  return summary;
}

export interface ReplayCommandDeps {
  bus: EventBus;
  clickhouse: ClickHouseEngine;
  log: Logger;
  registry?: Registry;
}

/**
 * `npm run cli -- replay --from <ISO-8601> [--stream events|dead-letter]`.
 * `args` are the words after `replay`; the result is what the CLI prints as JSON.
 */
export async function runReplayCommand(args: readonly string[], deps: ReplayCommandDeps): Promise<ReplaySummary> {
  return replay({ ...deps, ...parseReplayArgs(args) });
}
