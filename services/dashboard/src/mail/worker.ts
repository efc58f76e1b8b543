import type { FastifyBaseLogger } from 'fastify';
import type { EmailJobPayload, EmailJobRepository, EmailJobRow } from './job-repository.js';

/**
 * What a job handler did: `sent` keeps the row as a record (with the payload it returns, e.g.
 * without secrets); `discarded` means there was nothing to send, and the row is deleted.
 */
export type JobOutcome = { outcome: 'sent'; payload: EmailJobPayload } | { outcome: 'discarded' };
export type JobHandler = (job: EmailJobRow) => Promise<JobOutcome>;

export interface MailWorkerOptions {
  jobs: EmailJobRepository;
  handlers: Record<string, JobHandler>;
  log: FastifyBaseLogger;
  /** How often an idle worker looks for due jobs. Short: a reset e-mail should arrive quickly. */
  pollIntervalMs?: number;
  /** Per the password reset rules in services/dashboard/README.md: 30 s between attempts. */
  retryBackoffMs?: number;
  /** Per the password reset rules in services/dashboard/README.md: 3 attempts, then the job is failed. */
  maxAttempts?: number;
  /**
   * How long a claimed job is hidden from other workers. Far longer than one delivery (the
   * SDK's HTTP call), so that only a dead worker's job is picked up again.
   */
  leaseMs?: number;
  clock?: () => Date;
}

export const MAIL_WORKER_DEFAULTS = { pollIntervalMs: 1_000, retryBackoffMs: 30_000, maxAttempts: 3, leaseMs: 5 * 60_000 } as const;

export interface MailWorker {
  start(): void;
  /** Stop polling and wait for the job in hand. */
  stop(): Promise<void>;
  /** Run every due job now; the number handled. */
  runDue(): Promise<number>;
}

const describe = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 1000);

export function createMailWorker(opts: MailWorkerOptions): MailWorker {
  const { jobs, handlers, log } = opts;
  const pollIntervalMs = opts.pollIntervalMs ?? MAIL_WORKER_DEFAULTS.pollIntervalMs;
  const retryBackoffMs = opts.retryBackoffMs ?? MAIL_WORKER_DEFAULTS.retryBackoffMs;
  const maxAttempts = opts.maxAttempts ?? MAIL_WORKER_DEFAULTS.maxAttempts;
  const leaseMs = opts.leaseMs ?? MAIL_WORKER_DEFAULTS.leaseMs;
  const clock = opts.clock ?? (() => new Date());
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopping = false;
  let started = false;

  async function handle(job: EmailJobRow): Promise<void> {
    const context = { jobId: job.id, kind: job.kind, attempt: job.attempts };
    const handler = handlers[job.kind];
    try {
      // More claims than attempts: earlier workers died holding it (lease ran out).
      if (job.attempts > maxAttempts) throw new Error(`abandoned by a worker after ${maxAttempts} attempts`);
      if (!handler) throw new Error(`no handler for e-mail job kind ${job.kind}`);
      const result = await handler(job);
      if (result.outcome === 'sent') await jobs.markSent(job.id, result.payload, clock());
      else await jobs.delete(job.id);
      log.info({ ...context, outcome: result.outcome }, 'e-mail job done');
    } catch (err) {
      const error = describe(err);
      if (job.attempts >= maxAttempts || !handler) {
        await jobs.markFailed(job.id, error, clock());
        log.error({ ...context, err }, 'e-mail job failed permanently');
      } else {
        await jobs.retryAt(job.id, new Date(clock().getTime() + retryBackoffMs), error, clock());
        log.warn({ ...context, err, retryInMs: retryBackoffMs }, 'e-mail job failed; will retry');
      }
    }
  }

  async function runDue(): Promise<number> {
    let handled = 0;
    while (!stopping) {
      const job = await jobs.claimNext(clock(), leaseMs);
      if (!job) break;
      await handle(job);
      handled++;
    }
    return handled;
  }

  function schedule() {
    if (stopping) return;
    timer = setTimeout(() => {
      running = runDue()
        .catch((err) => log.warn({ err }, 'e-mail queue poll failed; trying again'))
        .finally(schedule);
    }, pollIntervalMs);
    // The queue alone must not keep a process alive that is otherwise done.
    timer.unref();
  }

  return {
    start() {
      if (started) return;
      started = true;
      schedule();
    },
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      await running;
    },
    runDue,
  };
}
