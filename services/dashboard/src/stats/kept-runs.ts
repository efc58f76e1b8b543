import { randomUUID } from 'node:crypto';
import { ClickHouseError, sqlFile, type ClickHouseEngine, type QueryParams } from '@chatlytics/clickhouse';
import { createResultCache } from './cache.js';

/** ClickHouse's code for a throwIf() that fired: stats_purchases_cached.sql's "the sealed run is not kept". */
const THROW_IF = 395;

/**
 * Settled sealed runs kept for the purchases statistic (migration 0090): the first settled read
 * of a run keeps it (runs/keep_run_purchases.sql, runs/keep_run.sql), every read after it, in
 * this process or another, reads stats_purchases_cached.sql (a run with holes:
 * stats_purchases_cached_holes.sql) against that build.
 */
export interface KeptRuns {
  /**
   * The purchases statistic's rows for a settled run (`params`: the statistic's and the run's,
   * with `run`, its fingerprint), or null when the run could not be kept (it was sealed again
   * meanwhile): the caller then reads the run's hours.
   */
  purchases(params: KeptRunParams): Promise<Record<string, unknown>[] | null>;
  /** Keeps a settled run unless kept already (the same `params`); false when it could not be. */
  keep(params: KeptRunParams): Promise<boolean>;
}

/** A statistic's parameters (statsQueryParams) and its window's sealed run's (SealedHoursParams, and `run`). */
export type KeptRunParams = QueryParams & { chatbot_id: string; run: string; holes: readonly string[] };

export function createKeptRuns(clickhouse: ClickHouseEngine, opts: { buildTtlMs?: number } = {}): KeptRuns {
  // Which build of a run to read, per process for minutes (a build lives a day): one lookup per
  // run instead of per call, and concurrent first reads share one keeping.
  const builds = createResultCache({ ttlMs: opts.buildTtlMs ?? 600_000, maxEntries: 1000 });
  const keep = async (params: QueryParams): Promise<string> => {
    const [found] = await clickhouse.query<{ build: string }>(sqlFile('runs/kept_build'), params);
    if (found) return found.build;
    const build = randomUUID();
    await clickhouse.command(sqlFile('runs/keep_run_purchases'), { ...params, build });
    await clickhouse.command(sqlFile('runs/keep_run'), { ...params, build });
    return build;
  };

  const isThrowIf = (err: unknown) => err instanceof ClickHouseError && err.clickhouseCode === THROW_IF;
  const keyOf = (params: KeptRunParams) => `${params.chatbot_id}/${params.run}`;
  // The build to read; null when the run changed while being kept (sealed again: a throwIf).
  const buildOf = (params: KeptRunParams) => builds.get(keyOf(params), () => keep(params)).catch((err: unknown) => {
    if (isThrowIf(err)) return null;
    throw err;
  });

  return {
    async keep(params) {
      return (await buildOf(params)) !== null;
    },

    async purchases(params) {
      const file = params.holes.length === 0 ? 'stats_purchases_cached' : 'stats_purchases_cached_holes';
      // Twice at most: a build this process remembers may be gone (expired, dropped by
      // rollups:rebuild); the query then fails on purpose and the run is kept again.
      for (let attempt = 0; attempt < 2; attempt++) {
        const build = await buildOf(params);
        if (build === null) return null;
        try {
          return await clickhouse.query<Record<string, unknown>>(sqlFile(file), { ...params, build });
        } catch (err) {
          if (!isThrowIf(err)) throw err;
          builds.forget(keyOf(params));
        }
      }
      return null;
    },
  };
}
