import fp from 'fastify-plugin';
import type { FastifyBaseLogger } from 'fastify';
import type { Postgres } from '@chatlytics/postgres';
import { every } from '../jobs/every.js';
import type { DigestService } from './service.js';

/** The advisory lock of the digest scheduler: one run at a time across every dashboard on the database. */
export const DIGEST_LOCK_KEY = 4_242_017_006;
/** How often the scheduler looks for due digests: a digest leaves at most this late after its hour. */
export const DEFAULT_DIGEST_INTERVAL_MS = 5 * 60_000;

export interface DigestSchedulerOptions {
  digests: Pick<DigestService, 'queueDue'>;
  postgres: Pick<Postgres, 'exclusive'>;
  log: FastifyBaseLogger;
  /** Between the end of one run and the start of the next; 0: never runs (tests call runOnce). */
  intervalMs: number;
}

/**
 * Queues the week's digests once their weekday and hour have passed: a run right after start-up
 * (catching up after downtime), then one every `intervalMs`. The lock only spares a second
 * process the work; what makes each digest go out once is digest_sends (service.ts).
 */
export function createDigestScheduler(opts: DigestSchedulerOptions) {
  async function runOnce(): Promise<number> {
    return (await opts.postgres.exclusive(DIGEST_LOCK_KEY, () => opts.digests.queueDue())) ?? 0;
  }
  const loop = every({
    intervalMs: opts.intervalMs, firstMs: 0, run: runOnce,
    onError: (err) => opts.log.warn({ err }, 'queueing weekly digests failed; the next run tries again'),
  });
  return { runOnce, start: loop.start, stop: loop.stop };
}

/** The scheduler as part of the dashboard app: started when the server is ready, stopped (after its run) on close. */
export const digestSchedulerPlugin = fp<DigestSchedulerOptions>(async (app, opts) => {
  const scheduler = createDigestScheduler(opts);
  app.addHook('onReady', async () => scheduler.start());
  app.addHook('onClose', async () => scheduler.stop());
});
