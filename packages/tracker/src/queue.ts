import type { KeyValueStore } from './types.js';

/** The queue's bounds: the oldest events go first when a page tracks beyond them while offline. */
export const QUEUE_LIMITS = { events: 1000, chars: 1 << 20 };

const EVENT = 'chatlytics:e:';
const DROPPED = 'chatlytics:dropped';

export interface QueuedEvent { key: string; body: string }

/** A Map behind the KeyValueStore interface: the queue while consent is pending or storage is refused. */
export function memoryStore(): KeyValueStore {
  const m = new Map<string, string>();
  return {
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, v),
    removeItem: (k) => void m.delete(k),
    keys: () => [...m.keys()],
  };
}

/**
 * The event queue over a key-value store, one key per event (`chatlytics:e:<uuidv7>`). Tabs
 * only ever add or remove whole keys, never rewrite a shared list, so two tabs appending at
 * once cannot lose each other's events; the v7 ids make key order the tracking order.
 * Bounds are in characters (what localStorage quotas count); an estimate kept per tab
 * triggers the exact scan, so a normal track() costs one setItem.
 */
export class EventQueue {
  private size = -1;
  private chars = 0;
  constructor(readonly store: KeyValueStore) {}

  add(id: string, body: string): void {
    try {
      this.store.setItem(EVENT + id, body);
    } catch {
      // Quota exceeded (storage full of other data): the event is lost and reported as dropped.
      this.addDropped(1);
      return;
    }
    this.size++;
    this.chars += body.length;
    if (this.size <= 0 || this.size > QUEUE_LIMITS.events || this.chars > QUEUE_LIMITS.chars) this.scan();
  }

  /** Event keys, oldest first. */
  private keys(): string[] {
    return this.store.keys().filter((k) => k.startsWith(EVENT)).sort();
  }

  /** Every queued event, oldest first, after dropping the oldest beyond the bounds. */
  scan(): QueuedEvent[] {
    const events: QueuedEvent[] = [];
    let chars = 0;
    for (const key of this.keys()) {
      const body = this.store.getItem(key);
      if (body !== null) { events.push({ key, body }); chars += body.length; }
    }
    let drop = 0;
    while (events.length - drop > QUEUE_LIMITS.events || chars > QUEUE_LIMITS.chars) {
      chars -= events[drop].body.length;
      this.store.removeItem(events[drop++].key);
    }
    if (drop) this.addDropped(drop);
    this.size = events.length - drop;
    this.chars = chars;
    return events.slice(drop);
  }

  /**
   * The oldest events `accept`ed fitting in `maxEvents` and `maxChars` (at least one). Reads
   * only the values it returns: add() enforces the bounds, a flush of a long queue stays cheap.
   */
  take(maxEvents: number, maxChars: number, accept: (key: string) => boolean = () => true): QueuedEvent[] {
    const out: QueuedEvent[] = [];
    let chars = 0;
    for (const key of this.keys()) {
      const body = accept(key) ? this.store.getItem(key) : null;
      if (body === null) continue;
      chars += body.length;
      if (out.length === maxEvents || (out.length > 0 && chars > maxChars)) break;
      out.push({ key, body });
    }
    return out;
  }

  remove(events: QueuedEvent[]): void {
    for (const e of events) this.store.removeItem(e.key);
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
    for (const e of this.scan()) this.store.removeItem(e.key);
    this.store.removeItem(DROPPED);
    this.size = 0;
    this.chars = 0;
  }
}
