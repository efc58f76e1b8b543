import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '@chatlytics/core';
import { every, type Loop } from './every.js';
import type { JobPayload, JobQueue, JobRow } from './queue.js';

/**
 * What a job handler did: `sent` keeps the row as a record (with the payload it returns, e.g.
 * without secrets); `discarded` means there was nothing to do, and the row is deleted.
 */
export type JobOutcome = { outcome: 'sent'; payload: JobPayload } | { outcome: 'discarded' };
export type JobHandler = (job: JobRow) => Promise<JobOutcome>;

/** A kind of job: its handler and how it is retried. */
export interface JobKind {
  handle: JobHandler;
  /** Attempts in all; after the last one fails, the job is failed. */
  maxAttempts: number;
  /** The wait after failed attempt `attempt` (1 = the first). */
  backoffMs(attempt: number): number;
  /** What the logs call one job of the kind ('e-mail job', 'webhook delivery'). */
  noun: string;
}

/** The e-mail rules (services/dashboard/README.md): 3 attempts, 30 s apart. */
export const MAIL_RETRY = { maxAttempts: 3, retryBackoffMs: 30_000 } as const;

/** An e-mail kind: MAIL_RETRY unless `tuning` says otherwise (tests shorten the wait). */
export const mailKind = (handle: JobHandler, tuning: { maxAttempts?: number; retryBackoffMs?: number } = {}): JobKind => ({
  handle,
  maxAttempts: tuning.maxAttempts ?? MAIL_RETRY.maxAttempts,
  backoffMs: () => tuning.retryBackoffMs ?? MAIL_RETRY.retryBackoffMs,
  noun: 'e-mail job',
});

/** Handlers of e-mail kinds as kinds, all with the same retries. */
export const mailKinds = (handlers: Record<string, JobHandler>, tuning?: { maxAttempts?: number; retryBackoffMs?: number }): Record<string, JobKind> =>
  Object.fromEntries(Object.entries(handlers).map(([name, handle]) => [name, mailKind(handle, tuning)]));

export const JOB_WORKER_DEFAULTS = { pollIntervalMs: 1_000, leaseMs: 5 * 60_000 } as const;

export interface JobWorkerOptions {
  jobs: JobQueue;
  /** The kinds this worker runs, and claims (no other): a kind, or a bare handler of an e-mail kind. */
  handlers: Record<string, JobKind | JobHandler>;
  log: FastifyBaseLogger;
  /** How often an idle worker looks for due jobs. Short: a reset e-mail should arrive quickly. */
  pollIntervalMs?: number;
  /**
   * How long a claimed job is hidden from other workers. Far longer than any one job (an HTTP
   * call, a digest's figures), so that only a dead worker's job is picked up again.
   */
  leaseMs?: number;
  clock?: () => Date;
}

export interface JobWorker extends Loop {
  /** Run every due job now; the number handled. */
  runDue(): Promise<number>;
}

const describe = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 1000);
/** A coded error that says trying again cannot help (a webhook target the SSRF rule refuses) fails its job at once; any other error is retried. */
const hopeless = (err: unknown) => err instanceof AppError && !err.retriable;

/** The worker of the job queue: polls it, runs each due job by its kind, retries and fails by the kind's rules. */
export function createJobWorker(opts: JobWorkerOptions): JobWorker {
  const { jobs, log } = opts;
  const kinds = new Map(Object.entries(opts.handlers).map(([name, k]) => [name, typeof k === 'function' ? mailKind(k) : k]));
  const names = [...kinds.keys()];
  const leaseMs = opts.leaseMs ?? JOB_WORKER_DEFAULTS.leaseMs;
  const clock = opts.clock ?? (() => new Date());

  async function handle(job: JobRow): Promise<void> {
    const kind = kinds.get(job.kind)!;
    const context = { jobId: job.id, kind: job.kind, attempt: job.attempts };
    try {
      // More claims than attempts: earlier workers died holding it (lease ran out).
      if (job.attempts > kind.maxAttempts) throw new Error(`abandoned by a worker after ${kind.maxAttempts} attempts`);
      const result = await kind.handle(job);
      if (result.outcome === 'sent') await jobs.markSent(job.id, result.payload, clock());
      else await jobs.delete(job.id);
      log.info({ ...context, outcome: result.outcome }, `${kind.noun} done`);
    } catch (err) {
      const error = describe(err);
      const code = err instanceof AppError ? err.code : undefined;
      if (job.attempts >= kind.maxAttempts || hopeless(err)) {
        await jobs.markFailed(job.id, error, clock());
        log.error({ ...context, code, err }, `${kind.noun} failed permanently`);
      } else {
        const retryInMs = kind.backoffMs(job.attempts);
        await jobs.retryAt(job.id, new Date(clock().getTime() + retryInMs), error, clock());
        log.warn({ ...context, code, err, retryInMs }, `${kind.noun} failed; will retry`);
      }
    }
  }

  async function runDue(): Promise<number> {
    let handled = 0;
    while (!loop.stopped) {
      const job = await jobs.claimNext(clock(), leaseMs, names);
      if (!job) break;
      await handle(job);
      handled++;
    }
    return handled;
  }

  const loop = every({
    intervalMs: opts.pollIntervalMs ?? JOB_WORKER_DEFAULTS.pollIntervalMs,
    run: runDue,
    onError: (err) => log.warn({ err }, 'job queue poll failed; trying again'),
  });
  return { runDue, start: loop.start, stop: loop.stop, get stopped() { return loop.stopped; } };
}
