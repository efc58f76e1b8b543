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
  /** Batches handed to the handler before the oldest is committed (1 = strictly one at a time). */
  readAhead: number;
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
      // Batches handed to the handler and not yet committed, oldest first.
      const inFlight: { lastOffset: number; count: number; accepted: Promise<boolean> }[] = [];
      /** Waits for the oldest batch, commits it; false when it was never accepted (stopping). */
      const commitOldest = async (): Promise<boolean> => {
        const oldest = inFlight[0];
        if (!(await oldest.accepted)) return false;
        inFlight.shift();
        await offsets.commit(oldest.lastOffset + 1);
        metrics.committed.inc({ bus: 'embedded' }, oldest.count);
        failures = 0;
        await deps.afterCommit(offsets.committed);
        return true;
      };
      try {
        while (!signal.aborted) {
          const end = events.endOffset;
          if (reader.nextOffset >= end) {
            // Caught up: commit what is in flight before sleeping, or it would wait for traffic.
            if (inFlight.length > 0) {
              if (!(await commitOldest())) return;
              continue;
            }
            await events.waitForAppend(reader.nextOffset, signal);
            continue;
          }
          const messages = await reader.read({ maxRecords: deps.limits.maxBatchMessages, maxBytes: deps.limits.maxBatchBytes, endOffset: end });
          const batch = { stream: 'events' as const, partition: 0, messages };
          const accepted = deliverUntilAccepted(handler, batch, {
            backoff: deps.backoff, log, signal,
            onDelivered: (b) => metrics.consumed.inc({ bus: 'embedded', stream: 'events' }, b.messages.length),
          });
          // Never an unhandled rejection while an older batch is awaited; commitOldest rethrows it.
          accepted.catch(() => {});
          inFlight.push({ lastOffset: Number(messages[messages.length - 1].offset), count: messages.length, accepted });
          // Read-ahead: the next batch is read and handed over while this one's handler still
          // waits (for ClickHouse), so decoding overlaps the insert. Offsets still commit one
          // batch at a time, in order, each only after its own handler AND every older one
          // accepted; a stop leaves everything from the oldest unaccepted batch uncommitted.
          while (inFlight.length >= deps.limits.readAhead) {
            if (!(await commitOldest())) return;
          }
        }
      } catch (err) {
        // A read or commit failure: start over from the committed offset after a back-off
        // (uncommitted work is redelivered: at-least-once).
        const delayMs = backoffDelay(failures++, deps.backoff);
        log.error({ err, committed: offsets.committed, delayMs: Math.round(delayMs) }, 'embedded bus consumer failed; resuming from the committed offset');
        await sleep(delayMs, signal);
      } finally {
        // Handlers still running finish before the reader is reused or the consumer stops, and
        // what they accepted (the oldest batches, in order, up to the first one not accepted)
        // is durable in the handler's store: commit it now rather than redeliver it.
        const settled = await Promise.allSettled(inFlight.map((b) => b.accepted));
        const firstNotAccepted = settled.findIndex((r) => r.status !== 'fulfilled' || !r.value);
        const accepted = firstNotAccepted === -1 ? inFlight : inFlight.slice(0, firstNotAccepted);
        if (accepted.length > 0) {
          try {
            await offsets.commit(accepted[accepted.length - 1].lastOffset + 1);
            metrics.committed.inc({ bus: 'embedded' }, accepted.reduce((n, b) => n + b.count, 0));
            // As after any commit: segments now fully consumed may leave (with a deeper
            // read-ahead, a stop often commits the last batches here rather than in the loop).
            await deps.afterCommit(offsets.committed);
          } catch (err) {
            log.error({ err, committed: offsets.committed }, 'embedded bus: could not commit accepted batches; they will be redelivered');
          }
        }
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
