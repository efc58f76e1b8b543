import type { FastifyReply } from 'fastify';
import type { SqlLimits, SqlQuota } from '@chatlytics/core';
import { ClickHouseError } from '../errors.js';
import { ConcurrencyGate } from './gate.js';
import { QuotaTracker } from './quota.js';
import { RunningQueries } from './running-queries.js';
import { clickhouseTime } from '../time.js';
import type { SqlQueryLogEntry } from './query-log.js';

/** Who sent a query: a named key (its own quota, if any) or the bootstrap key. */
export interface SqlPrincipal {
  name: string;
  quota?: SqlQuota;
}

export interface GovernorOptions {
  limits: SqlLimits;
  quota: SqlQuota;
  /** How long a query waits for a free slot before 429. */
  queueWaitMs: number;
  control: (sql: string) => Promise<string>;
  onQueryLogged?: (entry: SqlQueryLogEntry) => void;
}

export interface QueryOutcome { readRows: number; readBytes: number; resultBytes: number }

/**
 * What happens around each query of the read-only interface: the key's quota, the
 * concurrency slot, cancellation when the client goes away, and the query log entry.
 */
export function createGovernor(opts: GovernorOptions) {
  const gate = new ConcurrencyGate(opts.limits.maxConcurrentQueries, opts.queueWaitMs);
  const quotas = new QuotaTracker();
  const running = new RunningQueries(opts.control);

  return {
    /** Records a request refused before it ran (bad SQL, a write, a setting). */
    refused(principal: SqlPrincipal, base: { queryId: string; sql: string; database: string }, err: unknown) {
      opts.onQueryLogged?.(entry(principal, base, Date.now(), { readRows: 0, readBytes: 0, resultBytes: 0 }, null, err));
    },

    async run<T extends QueryOutcome>(
      principal: SqlPrincipal, reply: FastifyReply, base: { queryId: string; sql: string; database: string },
      fn: (sqlPrefix: string) => Promise<T>,
    ): Promise<T> {
      const started = Date.now();
      let release: (() => void) | undefined;
      let query: { id: string; prefix: string } | undefined;
      let outcome: QueryOutcome = { readRows: 0, readBytes: 0, resultBytes: 0 };
      let cancelled = false;
      let failure: unknown = null;
      const onClose = () => {
        if (!query || reply.raw.writableFinished) return;
        cancelled = true;
        running.kill(query.id).catch(() => undefined);
      };
      try {
        release = await gate.acquire();
        quotas.begin(principal.name, principal.quota ?? opts.quota);
        query = running.start();
        reply.raw.once('close', onClose);
        const result = await fn(query.prefix);
        outcome = result;
        return result;
      } catch (err) {
        failure = err;
        throw err;
      } finally {
        reply.raw.off('close', onClose);
        const sampled = query ? running.finish(query.id) : null;
        const peak = sampled?.peakMemory ?? null;
        if (sampled) {
          outcome = { ...outcome, readRows: Math.max(outcome.readRows, sampled.readRows), readBytes: Math.max(outcome.readBytes, sampled.readBytes) };
          quotas.end(principal.name, outcome.readRows);
        }
        release?.();
        opts.onQueryLogged?.(entry(principal, base, started, outcome, peak, failure, cancelled));
      }
    },
  };
}

function entry(
  principal: SqlPrincipal, base: { queryId: string; sql: string; database: string }, started: number,
  outcome: QueryOutcome, peak: number | null, err: unknown, cancelled = false,
): SqlQueryLogEntry {
  const code = err == null ? 0 : err instanceof ClickHouseError && err.clickhouseCode > 0 ? err.clickhouseCode : 1001;
  return {
    query_id: base.queryId,
    key_name: principal.name,
    raw_query: base.sql,
    database: base.database,
    started_at: clickhouseTime(started),
    duration_ms: Date.now() - started,
    read_rows: outcome.readRows,
    read_bytes: outcome.readBytes,
    result_bytes: outcome.resultBytes,
    peak_memory_usage: peak,
    status: cancelled ? 'cancelled' : code === 0 ? 'ok' : 'error',
    error_code: code,
  };
}
