/**
 * A short-lived, bounded result cache that also merges concurrent identical requests.
 * A dashboard page asks for several statistics at once and is often reloaded; the same
 * (account, chatbot, statistic, timeframe) within `ttlMs` gets the same answer instead of
 * another scan. Freshness: a statistic may be up to `ttlMs` old (services/dashboard/docs/statistics.md). Expiry runs on a
 * monotonic clock, so a pinned or adjusted wall clock never freezes or flushes it.
 */
export interface ResultCache {
  get<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /** Drops the answer kept for `key` (one found to be wrong: the next get computes it again). */
  forget(key: string): void;
}

export function createResultCache(opts: { ttlMs: number; maxEntries?: number; monotonicNow?: () => number }): ResultCache {
  const { ttlMs } = opts;
  // Bounded: keys include the chatbot id, and a crawler walking ids must not grow memory.
  const maxEntries = opts.maxEntries ?? 1000;
  const now = opts.monotonicNow ?? (() => performance.now());
  const entries = new Map<string, { expires: number; value: Promise<unknown> }>();

  return {
    get<T>(key: string, compute: () => Promise<T>): Promise<T> {
      if (ttlMs <= 0) return compute();
      const t = now();
      const hit = entries.get(key);
      if (hit && hit.expires > t) return hit.value as Promise<T>;
      const value = compute();
      entries.delete(key); // re-insert: Map order is then least recently computed first
      entries.set(key, { expires: t + ttlMs, value });
      // A failure is not an answer worth keeping: the next request tries again.
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      return value;
    },
    forget(key: string) {
      entries.delete(key);
    },
  };
}

/**
 * Concurrent requests for one key share one computation while it runs; nothing is kept after
 * it settles, so the next request computes again (for answers that must never be stale, such as
 * an ownership check, where the result cache's TTL would not do).
 */
export function createInFlight<T>(): { get(key: string, compute: () => Promise<T>): Promise<T> } {
  const pending = new Map<string, Promise<T>>();
  return {
    get(key, compute) {
      let value = pending.get(key);
      if (!value) {
        value = compute().finally(() => pending.delete(key));
        pending.set(key, value);
      }
      return value;
    },
  };
}
