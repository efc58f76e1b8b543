import fp from 'fastify-plugin';
import { sealHours, type ClickHouseEngine } from '@chatlytics/clickhouse';
import type { FastifyBaseLogger } from 'fastify';
import type { Postgres } from '@chatlytics/postgres';
import { RETRY_LOOKBACK_SECONDS } from './retry-lookback.js';
import { createEventStatsRepository } from './event-stats-repository.js';
import { daysWindow } from './timeframe.js';

/** The advisory lock of the sealer: one run at a time across every dashboard on the database. */
export const SEALER_LOCK_KEY = 4_242_017_002;
/** A new hour becomes sealable once it ends; a minute's delay is what a statistic pays meanwhile (its edge hour read raw). */
export const DEFAULT_SEAL_INTERVAL_MS = 60_000;

export interface SealerOptions {
  clickhouse: ClickHouseEngine;
  postgres: Pick<Postgres, 'exclusive'>;
  log: FastifyBaseLogger;
  clock: () => Date;
  /** Between the end of one run and the start of the next; 0: never runs (tests that seal call sealHours themselves). */
  intervalMs: number;
  /** Hours with fewer rows stay unsealed (default: sealHours' MIN_SEAL_ROWS); tests with small data lower it. */
  minRows?: number;
  /**
   * After a run that sealed hours, the sealed runs of the last `days` windows (each of these) of
   * the chatbots it sealed are kept for purchases (kept-runs.ts), so that the first read of such
   * a window in the hour does not keep it (~0.4 s on the big shop, against ~0.14 s). Default none.
   */
  keepRunsOfDays?: readonly number[];
}

/**
 * Keeps the statistics' sealed hours (migration 0050, clickhouse/README.md "Sealed hours")
 * up to date: a run right after start-up, then one every `intervalMs`. Runs never overlap,
 * here or in another dashboard process (the advisory lock); a failed run is logged and the
 * next one tries again. Until an hour is sealed the statistics read its rows: nothing waits
 * on the sealer but their speed.
 */
export function createSealer(opts: SealerOptions) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const stats = createEventStatsRepository(opts.clickhouse);

  // Outside the lock: keeping runs writes no sealed hour, and another dashboard's sealer need not wait for it.
  async function keepRuns(chatbotIds: readonly string[]) {
    const now = opts.clock();
    for (const chatbotId of chatbotIds) {
      for (const days of opts.keepRunsOfDays ?? []) {
        if (stopped) return;
        await stats.keepRun(chatbotId, daysWindow(days, now));
      }
    }
  }

  const schedule = (ms: number) => {
    timer = setTimeout(() => { running = tick(); }, ms).unref();
  };

  async function tick(): Promise<void> {
    try {
      const run = await opts.postgres.exclusive(SEALER_LOCK_KEY, () =>
        sealHours(opts.clickhouse, { before: opts.clock(), lookbackSeconds: RETRY_LOOKBACK_SECONDS, minRows: opts.minRows }));
      if (run && run.hours > 0) {
        const { chatbotIds, ...counts } = run;
        opts.log.info({ sealer: counts }, 'sealed hours');
        await keepRuns(chatbotIds).catch((err: unknown) =>
          opts.log.warn({ err }, 'keeping sealed runs failed; their first reads keep them'));
      }
    } catch (err) {
      opts.log.warn({ err }, 'sealing hours failed; the statistics read those hours from events meanwhile');
    }
    if (!stopped) schedule(opts.intervalMs);
  }

  return {
    start() {
      if (opts.intervalMs > 0) schedule(0);
    },
    /** No run starts after this; resolves once the one under way (if any) has ended. */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** The sealer as part of the dashboard app: started when the server is ready, stopped (after its run) on close. */
export const sealerPlugin = fp<SealerOptions>(async (app, opts) => {
  const sealer = createSealer(opts);
  app.addHook('onReady', async () => sealer.start());
  app.addHook('onClose', async () => sealer.stop());
});
