import type { SqlQuota } from '@chatlytics/core';
import { engineStyleError } from '../errors.js';

/**
 * Per-key budgets over fixed one-hour intervals, as ClickHouse's own quotas count: a query
 * counts when it starts, its rows read when it ends, and a key over either budget gets
 * 201 QUOTA_EXCEEDED (429, Retry-After = seconds until the interval ends) until the next
 * interval. Held in memory: one process serves the embedded interface, and a restart
 * starting a fresh interval is the same as ClickHouse restarting.
 */
const INTERVAL_MS = 3600_000;

interface Usage { start: number; queries: number; readRows: number }

export class QuotaTracker {
  private readonly usage = new Map<string, Usage>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one query for `key`, or throws 201 when the key's budget for this interval is spent. */
  begin(key: string, quota: SqlQuota): void {
    const u = this.current(key);
    const over = u.queries >= quota.queriesPerHour ? `queries = ${u.queries + 1}/${quota.queriesPerHour}`
      : u.readRows >= quota.readRowsPerHour ? `read rows = ${u.readRows}/${quota.readRowsPerHour}` : null;
    if (over) {
      const end = u.start + INTERVAL_MS;
      const err = engineStyleError(201, 'QUOTA_EXCEEDED',
        `Quota for key \`${key}\` for 3600 seconds has been exceeded: ${over}. Interval will end at ${new Date(end).toISOString()}`);
      throw Object.assign(err, { retryAfterSeconds: Math.max(1, Math.ceil((end - this.now()) / 1000)) });
    }
    u.queries++;
  }

  /** Adds the rows a finished (or failed) query read. */
  end(key: string, readRows: number): void {
    this.current(key).readRows += readRows;
  }

  private current(key: string): Usage {
    const now = this.now();
    let u = this.usage.get(key);
    if (!u || now - u.start >= INTERVAL_MS) {
      u = { start: now, queries: 0, readRows: 0 };
      this.usage.set(key, u);
    }
    return u;
  }
}
