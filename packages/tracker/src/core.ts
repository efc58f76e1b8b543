import { abGroupOf, newToken, parseRetryAfter, retryDelay, TOKEN_PATTERN, uuidv7 } from './ids.js';
import { EventQueue, memoryStore, type QueuedEvent } from './queue.js';
import type { Chatlytics, ConsentState, TrackerData, TrackerEnv, TrackerEvent, TrackerOptions } from './types.js';

/**
 * Batching: a batch leaves 2 s after the first event or at 20 events; one request carries at
 * most 100 events (the batch route's limit) and ~900 k characters (its 1 MB limit). A
 * keepalive request on page hide must stay under the browsers' 64 KiB in-flight budget:
 * 20 k characters are at most 60 kB in UTF-8.
 */
// Plain constants, which the minifier inlines; BATCHING names them for readers and tests.
const FLUSH_EVENTS = 20;
const FLUSH_MS = 2000;
const MAX_EVENTS = 100;
const MAX_CHARS = 900_000;
const HIDE_CHARS = 20_000;
export const BATCHING = { flushEvents: FLUSH_EVENTS, flushMs: FLUSH_MS, maxEvents: MAX_EVENTS, maxChars: MAX_CHARS, hideChars: HIDE_CHARS };

const TOKEN = 'chatlytics:token';
/** `<not before, epoch ms>:<failed attempts>`, shared by the tabs so that they back off together. */
const RETRY = 'chatlytics:retry';


export interface TrackerCore {
  api: Chatlytics;
  /** The page is being hidden or unloaded: send what fits in one keepalive request. */
  hidden(): void;
}

/**
 * The tracker's logic, host-independent. Guarantee: an event leaves the queue only when a 200
 * of the batch route named it accepted or rejected; anything else (network error, 429, 5xx, a
 * page closed mid-request) leaves it queued for a retry, with the same event_id, which the
 * server deduplicates.
 * Tabs: each event's key names the tab that tracked it, and a tab sends only its own events and
 * those of tabs no longer alive (a closed or reloaded page). A tab never sends another live
 * tab's events because it cannot trust its view of them: a browser propagates one tab's
 * localStorage removals to the others asynchronously. One tab at a time sends (env.exclusive).
 */
export function createTrackerCore(opts: TrackerOptions, env: TrackerEnv): TrackerCore {
  const url = opts.endpoint.replace(/\/+$/, '') + '/api/analytics/batch';
  let state: ConsentState = opts.honorPrivacySignals !== false && env.privacySignal ? 'denied' : opts.consent ?? 'granted';
  const memory = new EventQueue(memoryStore());
  const persistent = env.storage ? new EventQueue(env.storage) : memory;
  const store = persistent.store;
  let token: string | null = null;
  let unsent = 0;
  let due = 0;
  let draining: Promise<void> | undefined;
  let lastMs = 0;
  let seq = 0;
  /** The holdout arm the ingest last answered for this page's visitor; null before any answer. */
  let held: boolean | null = null;
  const tab = newToken(env.randomBytes(22)).slice(0, 10);
  const owner = (key: string) => key.slice(key.lastIndexOf(':') + 1);
  /** Events in a request not answered yet: a page hide must not send them a second time. */
  const inFlight = new Set<string>();
  env.registerTab(tab);

  /** A v7 id ordered after the previous one of this page, even within one millisecond. */
  function nextId(): string {
    const now = env.now();
    if (now > lastMs) {
      lastMs = now;
      seq = 0;
    } else if (++seq > 0xfff) {
      lastMs++;
      seq = 0;
    }
    return uuidv7(lastMs, env.randomBytes(10), seq);
  }

  /** In pending consent the token lives in memory; granted, the stored one wins (one per browser). */
  function currentToken(): string | null {
    if (state === 'denied') return null;
    const stored = state === 'granted' ? store.getItem(TOKEN) : null;
    if (stored && TOKEN_PATTERN.test(stored)) return (token = stored);
    token ??= newToken(env.randomBytes(22));
    if (state === 'granted') {
      try { store.setItem(TOKEN, token); } catch { /* storage full: the token lives for this page */ }
    }
    return token;
  }

  const readRetry = () => (store.getItem(RETRY) ?? '0:0').split(':').map(Number);

  function schedule(ms: number): void {
    const at = env.now() + ms;
    if (due && due <= at) return;
    due = at;
    env.setTimer(() => {
      if (due !== at) return;
      due = 0;
      void drain();
    }, ms);
  }

  /** Sends one batch; true when a 200 named every event of it (they leave the queue). */
  async function post(batch: QueuedEvent[], keepalive: boolean): Promise<boolean> {
    const tok = currentToken();
    if (!tok) return false;
    const dropped = persistent.dropped();
    // The token is added at send time: events tracked before consent get the browser's token.
    const events = batch.map((e) => `{"token":"${tok}",${e.body.slice(1)}`);
    let retryAfter = 0;
    for (const e of batch) inFlight.add(e.body);
    try {
      const res = await env.post(url, `{"dropped":${dropped},"events":[${events.join()}]}`, keepalive);
      if (res.status === 200) {
        const answer = (await res.json()) as { accepted: number; rejected: unknown[]; holdout?: boolean };
        if (answer.accepted + answer.rejected.length === batch.length) {
          persistent.remove(batch);
          persistent.addDropped(-dropped);
          store.removeItem(RETRY);
          // The arm is the ingest's to decide (it holds the key): the page only learns it.
          if (answer.holdout != null) env.holdout?.(held = answer.holdout);
          return true;
        }
      }
      if (res.status === 429 || res.status === 503) retryAfter = parseRetryAfter(res.retryAfter);
    } catch {
      /* refused connection, network error, timeout: retried like a 5xx */
    } finally {
      for (const e of batch) inFlight.delete(e.body);
    }
    // Consent withdrawn while the request was out (a denial clears the token): store nothing more.
    if (!token) return false;
    const attempt = readRetry()[1] || 0;
    const delay = retryDelay(attempt, retryAfter, env.random());
    try { store.setItem(RETRY, `${env.now() + delay}:${attempt + 1}`); } catch { /* then only this tab waits */ }
    schedule(delay);
    return false;
  }

  async function send(): Promise<void> {
    unsent = 0;
    for (;;) {
      if (state !== 'granted') return;
      // Read inside the lock: another tab may have failed (and set the wait) a moment ago.
      const wait = readRetry()[0] - env.now();
      if (wait > 0) return schedule(wait);
      const live = await env.liveTabs();
      const batch = persistent.take(MAX_EVENTS, MAX_CHARS, (e) => owner(e.key) === tab || !live?.includes(owner(e.key)));
      if (!batch.length || !(await post(batch, false))) return;
    }
  }

  function drain(): Promise<void> {
    if (state !== 'granted') return Promise.resolve();
    return (draining ??= env.exclusive(send).finally(() => {
      draining = undefined;
      // Events tracked while the last request was in flight.
      if (unsent > 0) schedule(0);
    }));
  }

  const api: Chatlytics = {
    track(event: TrackerEvent, data: TrackerData = {}) {
      if (state === 'denied') return;
      const id = nextId();
      // Where the visit came from (services/ingest/README.md, "Traffic source and device"): the
      // page and its referrer, unless the caller gave its own.
      if (event == 'visitor') data = { ...env.page?.(), ...data };
      const body = JSON.stringify({ event, data: { ...data, chatbot_id: data.chatbot_id ?? opts.chatbotId, event_id: id }, ab_test: !!opts.abTest });
      (state === 'granted' ? persistent : memory).add(`${id}:${tab}`, body);
      if (state !== 'granted') return;
      if (++unsent >= FLUSH_EVENTS) void drain();
      else schedule(FLUSH_MS);
    },
    // After a send already under way (it may have taken its batch before the latest events):
    // one more pass then takes everything queued now. Ends when all is delivered or an attempt
    // fails (its retry goes on in the background).
    async flush() {
      await draining;
      return drain();
    },
    consent(granted: boolean) {
      if (!granted) {
        state = 'denied';
        token = null;
        memory.clear();
        persistent.clear();
        store.removeItem(TOKEN);
        store.removeItem(RETRY);
        return;
      }
      if (state === 'granted') return;
      state = 'granted';
      if (persistent !== memory) {
        for (const e of memory.scan()) persistent.add(`${nextId()}:${tab}`, e.body);
        memory.clear();
      }
      void drain();
    },
    get token() { return currentToken(); },
    get abGroup() { return abGroupOf(!!opts.abTest, currentToken()); },
    inHoldout: () => held,
  };
  // Events a previous visit could not deliver.
  if (state === 'granted') schedule(0);

  return {
    api,
    hidden() {
      if (state !== 'granted' || readRetry()[0] > env.now()) return;
      const batch = persistent.take(MAX_EVENTS, HIDE_CHARS, (e) => owner(e.key) === tab && !inFlight.has(e.body));
      if (batch.length) void post(batch, true);
    },
  };
}
