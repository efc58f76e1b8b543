import type { Logger } from '@chatlytics/core';
import type { BatchHandler, ConsumerHandle } from '../types.js';
import { backoffDelay, deliverUntilAccepted, sleep, type BackoffOptions } from '../delivery.js';
import type { BusMetrics } from '../metrics.js';
import type { SegmentedLog } from './log.js';
import type { OffsetStore } from './offsets.js';
import { LogReader } from './reader.js';

export interface BatchLimits {
  maxBatchMessages: number;
  maxBatchBytes: number;
}

export interface EmbeddedConsumerDeps {
  events: SegmentedLog;
  offsets: OffsetStore;
  log: Logger;
  metrics: BusMetrics;
  limits: BatchLimits;
  backoff: BackoffOptions;
  /** Runs after each commit (segment clean-up). */
  afterCommit: (committed: number) => Promise<void>;
}

/**
 * The embedded consumer group (one member: this process). It tails the events stream in
 * process: when caught up it sleeps until the log announces a durable append, no polling.
 * A batch's offset is committed only after the handler resolved; on rejection the same
 * messages are redelivered after a back-off.
 */
export function startEmbeddedConsumer(deps: EmbeddedConsumerDeps, handler: BatchHandler): ConsumerHandle {
  const abort = new AbortController();
  const { signal } = abort;
  const { events, offsets, log, metrics } = deps;

  const loop = async () => {
    let failures = 0;
    while (!signal.aborted) {
      const reader = new LogReader(events, offsets.committed, log);
      try {
        while (!signal.aborted) {
          const end = events.endOffset;
          if (reader.nextOffset >= end) {
            await events.waitForAppend(reader.nextOffset, signal);
            continue;
          }
          const messages = await reader.read({ maxRecords: deps.limits.maxBatchMessages, maxBytes: deps.limits.maxBatchBytes, endOffset: end });
          const batch = { stream: 'events' as const, partition: 0, messages };
          const accepted = await deliverUntilAccepted(handler, batch, {
            backoff: deps.backoff, log, signal,
            onDelivered: (b) => metrics.consumed.inc({ bus: 'embedded', stream: 'events' }, b.messages.length),
          });
          if (!accepted) return; // stopped while the handler kept rejecting: nothing committed
          await offsets.commit(Number(messages[messages.length - 1].offset) + 1);
          metrics.committed.inc({ bus: 'embedded' }, messages.length);
          failures = 0;
          await deps.afterCommit(offsets.committed);
        }
      } catch (err) {
        // A read or commit failure: start over from the committed offset after a back-off
        // (uncommitted work is redelivered: at-least-once).
        const delayMs = backoffDelay(failures++, deps.backoff);
        log.error({ err, committed: offsets.committed, delayMs: Math.round(delayMs) }, 'embedded bus consumer failed; resuming from the committed offset');
        await sleep(delayMs, signal);
      } finally {
        await reader.close();
      }
    }
  };

  const running = loop();
  return {
    async stop() {
      abort.abort();
      await running;
    },
  };
}
