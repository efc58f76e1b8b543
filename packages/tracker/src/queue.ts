import type { KeyValueStore } from './types.js';

/** The queue's bounds: the oldest events go first when a page tracks beyond them while offline. */
const MAX_QUEUED = 1000;
const MAX_QUEUED_CHARS = 1 << 20;
export const QUEUE_LIMITS = { events: MAX_QUEUED, chars: MAX_QUEUED_CHARS };

const EVENT = 'chatlytics:e:';
const DROPPED = 'chatlytics:dropped';

/** One queued event: its JSON body and the key of the chunk holding it. */
export interface QueuedEvent { key: string; body: string }

/** A Map behind the KeyValueStore interface: the queue while consent is pending or storage is refused. */
export function memoryStore(): KeyValueStore {
  const m = new Map<string, string>();
  return {
    getItem: (k) => m.get(k),
    // Their results are ignored (the interface returns void): no `void` operator spent on them.
    setItem: (k, v) => m.set(k, v),
    removeItem: (k) => m.delete(k),
    keys: () => [...m.keys()],
  };
}

/**
 * The event queue over a key-value store. The events added during one task are written when
 * it ends (a microtask), as one key `chatlytics:e:<uuidv7 of the first>:<tab>`, one JSON body
 * per line (JSON.stringify never writes a raw newline): a burst of 1,000 track() calls costs
 * one setItem, not 1,000 (each costs ~20 µs in Chromium, most of track()). No other
 * task runs in between, so a page hide or unload still finds every tracked event stored, and
 * every read here writes the pending events first.
 * Tabs add keys, remove keys, and rewrite a key only to take out events they sent (one tab at a
 * time sends, core.ts), so two tabs adding at once cannot lose each other's events; the v7 ids
 * make key order the tracking order. Bounds are in characters (what localStorage quotas
 * count); an estimate kept per tab triggers the exact scan.
 */
export class EventQueue {
  private size = -1;
  private chars = 0;
  private pending: string[] = [];
  /** The key of the pending events: the first one's id. */
  private key = '';
  constructor(readonly store: KeyValueStore) {}

  add(id: string, body: string): void {
    if (this.pending.push(body) === 1) {
      this.key = EVENT + id;
      void Promise.resolve().then(() => this.write());
    }
  }

  /** Stores the events added since the last write. */
  write(): void {
    const n = this.pending.length;
    if (!n) return;
    const body = this.pending.join('\n');
    this.pending = [];
    try {
      this.store.setItem(this.key, body);
    } catch {
      // Quota exceeded (storage full of other data): the events are lost and reported as dropped.
      return this.addDropped(n);
    }
    if (this.size < 0 || (this.size += n) > MAX_QUEUED || (this.chars += body.length) > MAX_QUEUED_CHARS) this.scan();
  }

  /** Event keys, oldest first. */
  private keys(): string[] {
    return this.store.keys().filter((k) => k.startsWith(EVENT)).sort();
  }

  /** The queued events in order, each passed to `fn` until it returns true (stop). */
  private each(fn: (e: QueuedEvent) => boolean | void): void {
    this.write();
    for (const key of this.keys()) {
      for (const body of (this.store.getItem(key) ?? '').split('\n')) if (body && fn({ key, body })) return;
    }
  }

  /** Every queued event, oldest first, after dropping the oldest beyond the bounds. */
  scan(): QueuedEvent[] {
    const events: QueuedEvent[] = [];
    let chars = 0;
    this.each((e) => { events.push(e); chars += e.body.length; });
    let drop = 0;
    while (events.length - drop > MAX_QUEUED || chars > MAX_QUEUED_CHARS) chars -= events[drop++].body.length;
    // Unconditional (a no-op at 0): bytes of the size budget.
    this.remove(events.slice(0, drop));
    this.addDropped(drop);
    this.size = events.length - drop;
    this.chars = chars;
    return events.slice(drop);
  }

  /** The oldest events `accept`ed fitting in `maxEvents` and `maxChars` (at least one). */
  take(maxEvents: number, maxChars: number, accept: (e: QueuedEvent) => boolean): QueuedEvent[] {
    const out: QueuedEvent[] = [];
    let chars = 0;
    this.each((e) => {
      if (!accept(e)) return;
      chars += e.body.length;
      if (out.length === maxEvents || (out.length > 0 && chars > maxChars)) return true;
      out.push(e);
    });
    return out;
  }

  /** Takes these events out of their keys (a key left empty is removed). */
  remove(events: QueuedEvent[]): void {
    const gone = new Set(events.map((e) => e.body));
    for (const key of new Set(events.map((e) => e.key))) {
      const left = (this.store.getItem(key) ?? '').split('\n').filter((l) => l && !gone.has(l));
      // A shorter value than the stored one: no quota error to expect.
      if (left.length) this.store.setItem(key, left.join('\n'));
      else this.store.removeItem(key);
    }
    this.size = -1;
  }

  /** How many events the bounds (or a full storage) dropped since the last report. */
  dropped(): number {
    return Number(this.store.getItem(DROPPED)) || 0;
  }

  addDropped(n: number): void {
    const left = this.dropped() + n;
    try {
      if (left > 0) this.store.setItem(DROPPED, String(left));
      else this.store.removeItem(DROPPED);
    } catch { /* a full storage cannot keep the count either */ }
  }

  clear(): void {
    this.pending = [];
    for (const key of this.keys()) this.store.removeItem(key);
    this.store.removeItem(DROPPED);
    this.size = -1;
  }
}
