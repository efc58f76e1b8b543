import type { Logger } from '@chatlytics/core';
import type { BatchHandler, ConsumedBatch } from './types.js';
import { BusReplayFailedError } from './errors.js';

export interface BackoffOptions {
  /** First wait after a rejected batch. */
  initialMs: number;
  /** Cap: a long outage of the handler's store is retried at this pace, not ever slower. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 200, maxMs: 30_000 };

/** Exponential back-off with "equal jitter", so consumers of several partitions do not retry in lockstep. */
export function backoffDelay(attempt: number, opts: BackoffOptions): number {
  const exp = Math.min(opts.maxMs, opts.initialMs * 2 ** Math.min(attempt, 30));
  return exp / 2 + Math.random() * (exp / 2);
}

/** Resolves after `ms` or as soon as `signal` aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve(); };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export interface DeliveryOptions {
  backoff: BackoffOptions;
  log: Logger;
  /** Stops retrying (without committing) when aborted. */
  signal: AbortSignal;
  /** Extra stop condition, e.g. Kafka's "this partition was revoked". */
  shouldContinue?: () => boolean;
  /**
   * Called before waiting between attempts (Kafka heartbeats, so a long back-off does not cost
   * the partition). Its rejection ends delivery with that error: a heartbeat failing on a
   * rebalance must reach kafkajs so it rejoins, and the batch's new owner redelivers it.
   */
  whileWaiting?: () => Promise<void>;
  /**
   * Called every `intervalMs` while one handler attempt runs (Kafka heartbeats): an attempt may
   * wait on a store that refuses for minutes, and a member that stays silent for the session
   * timeout is expelled, rebalancing the group. Its rejection ends delivery with that error at
   * once, without waiting for the attempt: the partition is being taken away, and the attempt,
   * if it ever completes, commits nothing.
   */
  duringAttempt?: { intervalMs: number; beat: () => Promise<void> };
  /** Replay gives up (BusReplayFailedError) after this many rejections; the group consumer never does. */
  maxAttempts?: number;
  onDelivered?: (batch: ConsumedBatch) => void;
}

/**
 * At-least-once delivery of one batch: call the handler until it resolves. Rejection means
 * "not processed": the same messages are redelivered after a back-off, and the caller commits
 * only when this returns true. Returns false when stopped before the handler accepted.
 */
export async function deliverUntilAccepted(handler: BatchHandler, batch: ConsumedBatch, opts: DeliveryOptions): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    if (opts.signal.aborted || (opts.shouldContinue && !opts.shouldContinue())) return false;
    const abandoned = new AbortController();
    try {
      opts.onDelivered?.(batch);
      const attempt = handler(opts.duringAttempt ? { ...batch, abandoned: abandoned.signal } : batch);
      await (opts.duringAttempt ? keptAlive(attempt, opts.duringAttempt) : attempt);
      return true;
    } catch (err) {
      if (err instanceof KeepAliveFailed) {
        // The attempt goes on without anyone waiting for it: it should not start writing.
        abandoned.abort();
        throw err.cause;
      }
      const first = batch.messages[0]?.offset;
      if (opts.maxAttempts !== undefined && attempt + 1 >= opts.maxAttempts) {
        throw new BusReplayFailedError(`handler rejected the batch at ${batch.stream}/${batch.partition}@${first} ${attempt + 1} times`, { cause: err });
      }
      const delayMs = backoffDelay(attempt, opts.backoff);
      opts.log.warn({ err, stream: batch.stream, partition: batch.partition, offset: first, attempt: attempt + 1, delayMs: Math.round(delayMs) },
        'bus handler rejected a batch; redelivering after back-off');
      await opts.whileWaiting?.();
      await sleep(delayMs, opts.signal);
    }
  }
}

class KeepAliveFailed extends Error {}

/** `attempt`, with `beat` called every `intervalMs` until it settles; rejects with KeepAliveFailed as soon as a beat does. */
async function keptAlive(attempt: Promise<void>, { intervalMs, beat }: { intervalMs: number; beat: () => Promise<void> }): Promise<void> {
  let settled = false;
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, reject) => {
    const next = () => {
      timer = setTimeout(() => {
        beat().then(() => { if (!settled) next(); }, (err) => reject(new KeepAliveFailed('keep-alive failed', { cause: err })));
      }, intervalMs);
    };
    next();
  });
  // The abandoned attempt's outcome has nobody left to tell.
  attempt.catch(() => undefined);
  failed.catch(() => undefined);
  try {
    await Promise.race([attempt, failed]);
  } finally {
    settled = true;
    clearTimeout(timer);
  }
}
