import { isRetriable, type Logger } from '@chatlytics/core';
import { stoppedDuringRetry } from './errors.js';

export interface BackoffOptions {
  /** First delay. */
  baseMs: number;
  /**
   * Ceiling of the delay. A ClickHouse restart takes seconds to a minute; 10 s keeps the
   * probe rate negligible while recovering within one delay of the engine coming back.
   */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 100, maxMs: 10_000 };

/** Exponential with "equal jitter": half fixed, half random, so restarted consumers do not retry in lockstep. */
export function backoffDelay(attempt: number, opts: BackoffOptions, random = Math.random): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(attempt, 30));
  return exp / 2 + random() * (exp / 2);
}

export interface RetryContext {
  log: Logger;
  backoff: BackoffOptions;
  /** True once the consumer is stopping and its grace period is over: give up, leave uncommitted. */
  shouldGiveUp(): boolean;
  /** Called before each wait (metrics). */
  onRetry?(what: string, err: unknown): void;
  /** Retry every error, not only retriable ones: an insert that must complete (events-insert.ts). */
  retryAll?: boolean;
}

/**
 * Runs `fn` until it succeeds. Only errors marked retriable (AppError.retriable) are retried:
 * anything else is a bug or a refusal that retrying cannot fix, and propagates at once.
 * The batch is never committed while this loops, so an unavailable ClickHouse loses nothing.
 */
export async function retrying<T>(what: string, ctx: RetryContext, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!ctx.retryAll && !isRetriable(err)) throw err;
      if (ctx.shouldGiveUp()) throw stoppedDuringRetry(what, err);
      const delayMs = backoffDelay(attempt, ctx.backoff);
      ctx.onRetry?.(what, err);
      // warn on the first failures, then only every 10th: an outage must not flood the logs.
      if (attempt < 3 || attempt % 10 === 0) ctx.log.warn({ err, what, attempt, delayMs: Math.round(delayMs) }, 'retriable failure: backing off, batch stays uncommitted');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
