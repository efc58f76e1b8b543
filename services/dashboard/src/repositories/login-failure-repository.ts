import { inArray, lt, sql } from 'drizzle-orm';
import { loginFailures, type Database } from '@chatlytics/postgres';

/** One counter after an attempt was counted: its count before this attempt and when that count last grew. */
export interface CountedAttempt { key: string; before: number; lastFailureAt: Date | null }

/**
 * The log-in throttle's counters (auth/login-throttle.ts) in PostgreSQL, so every dashboard
 * process shares them and a restart forgets nothing. Keys are opaque digests.
 */
export function createLoginFailureRepository({ db }: { db: Database }) {
  const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;
  return {
    /**
     * Counts an attempt on every key before its password is checked, in one statement: the
     * increment is atomic, so attempts sent at once each see a different count and a burst
     * cannot slip past a limit. A count whose last failure is older than `forgetBefore` starts
     * again from zero.
     */
    async count(keys: string[], now: Date, forgetBefore: Date): Promise<CountedAttempt[]> {
      const result = await db.execute(sql`
        with previous as (
          select key, last_failure_at from ${loginFailures} where key in (${sql.join(keys.map((k) => sql`${k}`), sql`, `)})
        ), counted as (
          insert into ${loginFailures} (key, failures, last_failure_at)
          values ${sql.join(keys.map((k) => sql`(${k}, 1, ${ts(now)})`), sql`, `)}
          on conflict (key) do update set
            failures = case when ${loginFailures.lastFailureAt} < ${ts(forgetBefore)} then 1 else ${loginFailures.failures} + 1 end,
            last_failure_at = excluded.last_failure_at
          returning key, failures
        )
        select counted.key, counted.failures - 1 as before,
          case when previous.last_failure_at < ${ts(forgetBefore)} then null else previous.last_failure_at end as last_failure_at
        from counted left join previous on previous.key = counted.key`);
      return (result as unknown as { rows: { key: string; before: number | string; last_failure_at: Date | string | null }[] }).rows.map((r) => ({
        key: r.key, before: Number(r.before), lastFailureAt: r.last_failure_at === null ? null : new Date(r.last_failure_at),
      }));
    },

    /** A successful log-in: its attempt is taken back from `uncount`, and `clear` is forgotten. */
    async succeeded(uncount: string[], clear: string[]): Promise<void> {
      if (clear.length) await db.delete(loginFailures).where(inArray(loginFailures.key, clear));
      if (uncount.length) {
        await db.update(loginFailures).set({ failures: sql`greatest(${loginFailures.failures} - 1, 0)` })
          .where(inArray(loginFailures.key, uncount));
      }
    },

    /** Drops counters that are forgotten anyway, so the table holds at most the last hour's. */
    async prune(forgetBefore: Date): Promise<void> {
      await db.delete(loginFailures).where(lt(loginFailures.lastFailureAt, forgetBefore));
    },
  };
}
export type LoginFailureRepository = ReturnType<typeof createLoginFailureRepository>;
