/**
 * Per-client budgets in fixed windows, in memory, with a hard bound on the clients it holds.
 *
 * Why not @fastify/rate-limit's LocalStore: it forgets the least recently used key once it
 * holds 5,000, so a flood of 5,000 fresh addresses (IPv6 /64s cost an attacker nothing) wiped
 * every budget, the flooder's own included. Here a budget is never evicted before its window
 * ends. When the store is full of live windows, a client it does not know is refused until
 * the oldest window ends (fail closed for newcomers; everyone already counted keeps counting).
 *
 * The Map is kept in window-start order (a restarted window is deleted and re-inserted), so
 * ended windows are always at its front: each call drops those first, in amortised O(1).
 */
export interface RateWindow {
  /** Spent in the current window, after this call. */
  used: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
  allowed: boolean;
  /** Refused only because the store is full of other clients' windows. */
  storeFull: boolean;
}

export interface RateStore {
  /** Charges `cost` to `key`'s budget of `max` when all of it fits; a refused charge spends nothing. */
  take(key: string, cost: number, max: number): RateWindow;
  size(): number;
}

/**
 * The default bound: 500,000 clients in one window, 63 MB of heap when full (measured: 126 bytes
 * per IPv6 /64 key with its window, the heap after filling a store with 500,000 /64s under
 * --expose-gc). A node answering 14,000 requests a second, each from a new client, fills it in
 * 36 s of a 60 s window; a flood that fills it locks out only clients it does not yet hold,
 * for at most the rest of the oldest window.
 */
export const RATE_STORE_MAX_KEYS = 500_000;

export function createRateStore(opts: { windowMs: number; maxKeys?: number; now?: () => number }): RateStore {
  const { windowMs } = opts;
  const maxKeys = opts.maxKeys ?? RATE_STORE_MAX_KEYS;
  const now = opts.now ?? (() => performance.now());
  const windows = new Map<string, { used: number; endsAt: number }>();

  const dropEnded = (t: number) => {
    for (const [key, w] of windows) {
      if (w.endsAt > t) return;
      windows.delete(key);
    }
  };

  // endsAt - t is computed in floating point: a fresh window's (t + windowMs) - t can come out a
  // hair above windowMs, which the reply's whole seconds (rounded up) turned into 61 s.
  const msUntil = (endsAt: number, t: number) => Math.round(endsAt - t);

  return {
    take(key, cost, max) {
      const t = now();
      dropEnded(t);
      let w = windows.get(key);
      if (w === undefined) {
        if (windows.size >= maxKeys) {
          // Every window held is live: the oldest ends first, and with it the first free place.
          const oldest = windows.values().next().value!;
          return { used: 0, resetMs: msUntil(oldest.endsAt, t), allowed: false, storeFull: true };
        }
        w = { used: 0, endsAt: t + windowMs };
        windows.set(key, w);
      }
      const allowed = w.used + cost <= max;
      if (allowed) w.used += cost;
      return { used: w.used, resetMs: msUntil(w.endsAt, t), allowed, storeFull: false };
    },
    size: () => windows.size,
  };
}
