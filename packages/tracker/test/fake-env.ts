import { randomBytes } from 'node:crypto';
import { memoryStore, type HttpAnswer, type KeyValueStore, type TrackerEnv } from '../src/index.js';

export interface SentRequest { at: number; url: string; body: { dropped: number; events: { event: string; token: string; data: Record<string, unknown>; ab_test: boolean }[] }; keepalive: boolean }
export type Answer = { status: number; retryAfter?: string; body?: unknown } | 'network-error';

/**
 * A browser for the tracker's logic: a virtual clock with timers, a shared store (one per
 * "site": tabs share it), a lock shared by the tabs, and a server whose answers the test picks.
 */
export class FakeSite {
  now = 1_760_000_000_000;
  readonly store: KeyValueStore = memoryStore();
  readonly requests: SentRequest[] = [];
  answer: (req: SentRequest) => Answer = (req) => ({ status: 200, body: { success: true, accepted: req.body.events.length, rejected: [] } });
  private timers: { at: number; fn: () => void }[] = [];
  private lock: Promise<void> = Promise.resolve();
  /** Tabs alive; null: a browser without Web Locks. */
  live: Set<string> | null = new Set();

  env(over: Partial<TrackerEnv> = {}): TrackerEnv {
    return {
      storage: this.store,
      post: async (url, body, keepalive): Promise<HttpAnswer> => {
        const req = { at: this.now, url, body: JSON.parse(body), keepalive };
        this.requests.push(req);
        await Promise.resolve();
        const a = this.answer(req);
        if (a === 'network-error') throw new TypeError('Failed to fetch');
        return { status: a.status, retryAfter: a.retryAfter ?? null, json: async () => a.body };
      },
      exclusive: (fn) => {
        const run = this.lock.then(fn);
        this.lock = run.catch(() => undefined);
        return run;
      },
      now: () => this.now,
      random: Math.random,
      randomBytes: (n) => new Uint8Array(randomBytes(n)),
      setTimer: (fn, ms) => this.timers.push({ at: this.now + ms, fn }),
      registerTab: (id) => this.live?.add(id),
      liveTabs: async () => (this.live ? [...this.live] : null),
      privacySignal: false,
      ...over,
    };
  }

  /** Every open page of the site goes away (their events become anyone's to send). */
  closeTabs(): void {
    this.live?.clear();
  }

  /** Lets promises settle (requests answer, locks pass) without moving the clock. */
  async settle(): Promise<void> {
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
  }

  /** Moves the clock, firing due timers in order and letting their work settle. */
  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      await this.settle();
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.now = Math.max(this.now, next.at);
      next.fn();
    }
    this.now = end;
    await this.settle();
  }

  /** Event ids delivered in 200-answered requests. */
  sentIds(): string[] {
    return this.requests.flatMap((r) => r.body.events.map((e) => e.data.event_id as string));
  }

  /** The queued events' bodies (a stored key holds up to 100, one per line). */
  queued(): string[] {
    return this.store.keys().filter((k) => k.startsWith('chatlytics:e:')).flatMap((k) => this.store.getItem(k)!.split('\n'));
  }
}
