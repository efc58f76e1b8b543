import { createTrackerCore } from './core.js';
import type { Chatlytics, KeyValueStore, TrackerEnv, TrackerOptions } from './types.js';

// The workspace compiles without the DOM library: the few browser globals used are typed here.
interface BrowserGlobals {
  localStorage: { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem(k: string): void; readonly length: number };
  navigator: {
    locks?: { request(name: string, fn: () => Promise<void>): Promise<void>; query(): Promise<{ held?: { name?: string }[] }> };
    globalPrivacyControl?: boolean;
    doNotTrack?: string | null;
  };
  document: { visibilityState: string; referrer: string; addEventListener(type: string, fn: () => void): void };
  location: { href: string };
  addEventListener(type: string, fn: () => void): void;
  crypto: { getRandomValues(a: Uint8Array): Uint8Array };
  fetch(url: string, init: object): Promise<{ status: number; headers: { get(n: string): string | null }; json(): Promise<unknown> }>;
  AbortSignal: { timeout?(ms: number): unknown };
  setTimeout(fn: () => void, ms: number): unknown;
  dispatchEvent(e: unknown): void;
  CustomEvent: new (type: string, init: { detail: unknown }) => unknown;
}

const TAB_LOCK = 'chatlytics:tab:';

/** localStorage, or null where the browser refuses it (privacy modes, sandboxed frames). */
function localStore(w: BrowserGlobals): KeyValueStore | null {
  try {
    const ls = w.localStorage;
    // Throws where storage is refused (null when disabled, a SecurityError in sandboxed frames).
    void ls.length;
    return {
      getItem: (k) => ls.getItem(k),
      setItem: (k, v) => ls.setItem(k, v),
      removeItem: (k) => ls.removeItem(k),
      keys: () => Object.keys(ls),
    };
  } catch {
    return null;
  }
}

export function browserEnv(w: BrowserGlobals = globalThis as unknown as BrowserGlobals): TrackerEnv {
  const nav = w.navigator;
  // One getRandomValues call per 1 KiB instead of one per event: it is a call into the browser.
  let pool: Uint8Array = new Uint8Array(0);
  let used = 0;
  const randomBytes = (n: number) => {
    if (used + n > pool.length) {
      pool = w.crypto.getRandomValues(new Uint8Array(1024));
      used = 0;
    }
    return pool.subarray(used, (used += n));
  };
  return {
    storage: localStore(w),
    async post(url, body, keepalive) {
      // text/plain (fetch's default for a string) is a simple request: no CORS preflight.
      const res = await w.fetch(url, { method: 'POST', body, keepalive, signal: w.AbortSignal.timeout?.(30_000) });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), json: () => res.json() };
    },
    exclusive: (fn) => (nav.locks ? nav.locks.request('chatlytics', fn) : fn()),
    // Held until the page goes away: the browser releases a closed page's locks.
    registerTab: (id) => void nav.locks?.request(TAB_LOCK + id, () => new Promise(() => undefined)),
    liveTabs: async () => (nav.locks ? (await nav.locks.query()).held?.map((l) => String(l.name).slice(TAB_LOCK.length)) ?? [] : null),
    now: Date.now,
    random: Math.random,
    randomBytes,
    setTimer: (fn, ms) => w.setTimeout(fn, ms),
    privacySignal: !!nav.globalPrivacyControl || nav.doNotTrack == '1',
    page: () => ({ url: w.location.href, referrer: w.document.referrer }),
    holdout: (held) => w.dispatchEvent(new w.CustomEvent('chatlytics:holdout', { detail: held })),
  };
}

/** Starts a tracker in this page: queue, batching, retries, and a last send when the page is hidden. */
export function startTracker(options: TrackerOptions, w: BrowserGlobals = globalThis as unknown as BrowserGlobals): Chatlytics {
  const core = createTrackerCore(options, browserEnv(w));
  w.addEventListener('pagehide', core.hidden);
  w.document.addEventListener('visibilitychange', () => {
    if (w.document.visibilityState === 'hidden') core.hidden();
  });
  return core.api;
}
