import t from 'tap';
import { createTrackerCore, memoryStore, type TrackerOptions } from '../src/index.js';
import { FakeSite } from './fake-env.js';

const OPTS: TrackerOptions = { endpoint: 'https://ingest.test/', chatbotId: 'bot-1' };
const ok200 = (n: number, rejected: unknown[] = []) => ({ status: 200, body: { success: true, accepted: n - rejected.length, rejected } });

t.test('a batch leaves at 20 events, or 2 s after the first; a 200 empties the queue', async (t) => {
  const site = new FakeSite();
  const { api } = createTrackerCore(OPTS, site.env());
  await site.advance(0);
  for (let i = 0; i < 19; i++) api.track('message_sent', { n: i });
  await site.settle();
  t.equal(site.requests.length, 0);
  api.track('message_sent', { n: 19 });
  await site.settle();
  t.equal(site.requests.length, 1);
  const [req] = site.requests;
  t.equal(req.url, 'https://ingest.test/api/analytics/batch');
  t.equal(req.body.events.length, 20);
  t.equal(req.body.dropped, 0);
  t.match(req.body.events[0], { event: 'message_sent', token: /^[A-Za-z0-9_-]{21}[01]$/, ab_test: false, data: { n: 0, chatbot_id: 'bot-1', event_id: /^[0-9a-f-]{36}$/ } });
  t.equal(new Set(req.body.events.map((e) => e.token)).size, 1, 'one token per browser');
  t.same(site.queued(), []);

  api.track('visitor');
  api.track('bot_open', { chatbot_id: 'given' });
  await site.advance(1999);
  t.equal(site.requests.length, 1, 'not before 2 s');
  await site.advance(1);
  t.equal(site.requests.length, 2);
  t.equal(site.requests[1].body.events[1].data.chatbot_id, 'given', 'a given chatbot_id is kept');
});

t.test('server down: events stay, retries back off, all delivered once when it is back', async (t) => {
  const site = new FakeSite();
  let up = false;
  site.answer = (req) => (up ? ok200(req.body.events.length) : 'network-error');
  const { api } = createTrackerCore(OPTS, site.env());
  for (let i = 0; i < 30; i++) api.track('message_sent', { n: i });
  await site.advance(60_000);
  const failed = site.requests.length;
  t.ok(failed >= 3 && failed <= 12, `${failed} attempts in a minute, not a storm`);
  const gaps = site.requests.slice(1).map((r, i) => r.at - site.requests[i].at);
  t.ok(gaps.every((g, i) => g <= 1000 * 2 ** (i + 1)), `gaps within the full-jitter ceiling: ${gaps}`);
  t.equal(site.queued().length, 30, 'nothing left the queue');

  // A reload: the page goes away, a new tracker over the same storage, the server back.
  site.closeTabs();
  up = true;
  createTrackerCore(OPTS, site.env());
  await site.advance(300_000);
  const delivered = site.requests.filter((r) => r.at >= 60_000 + 1_760_000_000_000).flatMap((r) => r.body.events.map((e) => e.data.n));
  t.same([...delivered].sort((a, b) => Number(a) - Number(b)), Array.from({ length: 30 }, (_, i) => i), 'each event once after the outage');
  t.same(site.queued(), []);
});

for (const status of [429, 503]) {
  t.test(`${status} with Retry-After: 5: no request for 5 s, then delivered`, async (t) => {
    const site = new FakeSite();
    let refuse = true;
    site.answer = (req) => (refuse ? { status, retryAfter: '5' } : ok200(req.body.events.length));
    const { api, hidden } = createTrackerCore(OPTS, site.env());
    for (let i = 0; i < 20; i++) api.track('visitor');
    await site.settle();
    t.equal(site.requests.length, 1);
    refuse = false;
    api.track('visitor');
    hidden();
    await site.advance(4999);
    t.equal(site.requests.length, 1, 'neither the timer, a new event nor a page hide sends before 5 s');
    await site.advance(1001 + 1000);
    t.equal(site.requests.length, 2, 'one retry after Retry-After plus at most 1 s of jitter');
    t.same(site.queued(), []);
  });
}

t.test('rejected events leave the queue; a 200 that does not account for every event keeps them', async (t) => {
  const site = new FakeSite();
  site.answer = (req) => ok200(req.body.events.length, [{ index: 1, code: 'ANALYTICS_005', errors: {} }]);
  const { api } = createTrackerCore(OPTS, site.env());
  api.track('visitor');
  api.track('visitor');
  await site.advance(2000);
  t.same(site.queued(), [], 'the rejected event is not retried');
  site.answer = () => ({ status: 200, body: { success: true, accepted: 0, rejected: [] } });
  api.track('visitor');
  await site.advance(2000);
  t.equal(site.queued().length, 1);
});

t.test('two tabs share the queue: no event sent twice, none lost', async (t) => {
  const site = new FakeSite();
  const accepted: string[] = [];
  site.answer = (req) => {
    accepted.push(...req.body.events.map((e) => e.data.event_id as string));
    return ok200(req.body.events.length);
  };
  const a = createTrackerCore(OPTS, site.env()).api;
  const b = createTrackerCore(OPTS, site.env()).api;
  for (let i = 0; i < 500; i++) {
    (i % 2 ? a : b).track('message_sent', { i });
    if (i % 37 === 0) await site.advance(100);
  }
  await site.advance(10_000);
  t.equal(accepted.length, 500);
  t.equal(new Set(accepted).size, 500);
  t.same(site.queued(), []);
});

t.test('the drop count rides along with the next batch, then resets', async (t) => {
  const site = new FakeSite();
  let up = false;
  site.answer = (req) => (up ? ok200(req.body.events.length) : { status: 503, retryAfter: '1' });
  const { api } = createTrackerCore(OPTS, site.env());
  for (let i = 0; i < 1003; i++) api.track('visitor');
  await site.advance(100);
  t.same(site.requests.map((r) => [r.body.events.length, r.body.dropped]), [[100, 3]], 'the first attempt reports the 3 dropped');
  up = true;
  await site.advance(600_000);
  t.same(site.requests.slice(1).map((r) => r.body.dropped), [3, 0, 0, 0, 0, 0, 0, 0, 0, 0], 'again on the retry, then 0 after its 200');
  t.equal(new Set(site.sentIds()).size, 1000, 'the 1,000 kept events are delivered');
  t.same(site.queued(), []);
});

t.test('consent: pending keeps events in memory only; granted stores and sends; denied clears', async (t) => {
  const site = new FakeSite();
  const { api } = createTrackerCore({ ...OPTS, consent: 'pending' }, site.env());
  api.track('visitor');
  api.track('bot_open');
  const pendingToken = api.token;
  await site.advance(5000);
  t.equal(site.requests.length, 0, 'nothing sent');
  t.same(site.store.keys(), [], 'nothing stored, not even the token');
  api.consent(true);
  await site.advance(100);
  t.equal(site.requests.length, 1);
  t.equal(site.requests[0].body.events.length, 2);
  t.equal(site.store.getItem('chatlytics:token'), pendingToken, 'the token is stored once granted');

  site.answer = () => 'network-error';
  api.track('visitor');
  await site.advance(3000);
  t.equal(site.queued().length, 1);
  api.consent(false);
  t.same(site.store.keys(), [], 'denied: queue, token and retry state are gone');
  t.equal(api.token, null);
  api.track('visitor');
  await site.advance(60_000);
  t.same(site.store.keys(), []);
});

t.test('consent withdrawn while a request is out: its failure stores no retry state', async (t) => {
  const site = new FakeSite();
  let fail!: () => void;
  const answered = new Promise<void>((resolve) => { fail = resolve; });
  const base = site.env();
  const env = { ...base, post: async (url: string, body: string, keepalive: boolean) => {
    const pending = base.post(url, body, keepalive);
    await answered;
    await pending.catch(() => undefined);
    throw new TypeError('Failed to fetch');
  } };
  const { api } = createTrackerCore(OPTS, env);
  api.track('visitor');
  await site.advance(2000);
  t.equal(site.requests.length, 1, 'the request is out');
  api.consent(false);
  fail();
  await site.advance(60_000);
  t.same(site.store.keys(), [], 'nothing stored after the denial, not even the retry state');
  t.equal(site.requests.length, 1, 'and nothing sent again');
});

t.test('Global Privacy Control / Do Not Track: denied unless the page opts out', async (t) => {
  const site = new FakeSite();
  const { api } = createTrackerCore(OPTS, site.env({ privacySignal: true }));
  api.track('visitor');
  await site.advance(5000);
  t.equal(site.requests.length, 0);
  t.same(site.store.keys(), []);
  t.equal(api.token, null);
  api.consent(true);
  api.track('visitor');
  await site.advance(5000);
  t.equal(site.requests.length, 1, 'an explicit consent overrides the signal');
  const other = new FakeSite();
  createTrackerCore({ ...OPTS, honorPrivacySignals: false }, other.env({ privacySignal: true })).api.track('visitor');
  await other.advance(5000);
  t.equal(other.requests.length, 1, 'opted out of the signals');
});

t.test('A/B: the token decides the group, stable across loads', async (t) => {
  const site = new FakeSite();
  const first = createTrackerCore({ ...OPTS, abTest: true }, site.env()).api;
  const group = first.abGroup;
  t.ok(group === 'control' || group === 'test');
  t.equal(createTrackerCore({ ...OPTS, abTest: true }, site.env()).api.abGroup, group);
  t.equal(createTrackerCore(OPTS, site.env()).api.abGroup, null);
  first.track('visitor');
  await site.advance(2000);
  t.equal(site.requests[0].body.events[0].ab_test, true);
});

t.test('a page hide sends one keepalive request and removes on its 200; storage refused works from memory', async (t) => {
  const site = new FakeSite();
  const { api, hidden } = createTrackerCore(OPTS, site.env());
  api.track('visitor');
  hidden();
  await site.settle();
  t.equal(site.requests.length, 1);
  t.equal(site.requests[0].keepalive, true);
  t.same(site.queued(), []);
  const noStorage = new FakeSite();
  const memoryOnly = createTrackerCore(OPTS, noStorage.env({ storage: null })).api;
  memoryOnly.track('visitor');
  await noStorage.advance(2000);
  t.equal(noStorage.requests.length, 1);
});

t.test('no retry storm after an outage: 200 browsers come back spread out', async (t) => {
  const site = new FakeSite();
  const start = site.now;
  const outageEnd = start + 120_000;
  site.answer = (req) => (site.now < outageEnd ? { status: 503, retryAfter: '5' } : ok200(req.body.events.length));
  for (let i = 0; i < 200; i++) {
    const env = site.env({ storage: memoryStore(), exclusive: (fn) => fn() });
    createTrackerCore(OPTS, env).api.track('visitor');
  }
  await site.advance(900_000);
  const after = site.requests.filter((r) => r.at >= outageEnd);
  const perSecond = new Map<number, number>();
  for (const r of after) perSecond.set(Math.floor((r.at - outageEnd) / 1000), (perSecond.get(Math.floor((r.at - outageEnd) / 1000)) ?? 0) + 1);
  const peak = Math.max(...perSecond.values());
  t.comment(`after a 2-minute outage: ${after.length} requests, peak ${peak}/s, last at +${Math.round((after.at(-1)!.at - outageEnd) / 1000)} s`);
  t.equal(after.length, 200, 'each browser succeeds with its first request after the outage');
  t.ok(peak <= 30, `peak ${peak} requests/s of 200 browsers`);
});

t.test('a tab sends its own events and those of closed tabs, never a live tab\'s', async (t) => {
  const site = new FakeSite();
  site.answer = () => 'network-error';
  const a = createTrackerCore(OPTS, site.env()).api;
  a.track('visitor');
  await site.advance(2500);
  site.answer = (req) => ok200(req.body.events.length);
  site.store.removeItem('chatlytics:retry');
  const before = site.requests.length;
  const b = createTrackerCore(OPTS, site.env());
  await b.api.flush();
  t.equal(site.requests.length, before, 'b left a\'s event alone while a lives');
  site.closeTabs();
  await b.api.flush();
  t.equal(site.requests.length, before + 1, 'adopted once a is gone');
  t.same(site.queued(), []);
});

t.test('a page hide does not resend what is in flight', async (t) => {
  const site = new FakeSite();
  const waiting: (() => void)[] = [];
  const env = site.env();
  const { api, hidden } = createTrackerCore(OPTS, {
    ...env,
    post: async (...args) => { await new Promise<void>((r) => waiting.push(r)); return env.post(...args); },
  });
  for (let i = 0; i < 20; i++) api.track('visitor');
  await site.settle();
  api.track('bot_open');
  hidden();
  for (const r of waiting) r();
  await site.settle();
  const sent = site.requests.map((r) => r.body.events.length);
  t.same(sent, [20, 1], 'the hide sent only the event not in flight');
});

t.test('flush(): resolves once everything queued at the call is delivered, or after one failed attempt', async (t) => {
  const site = new FakeSite();
  const gates: (() => void)[] = [];
  const env = site.env();
  const { api } = createTrackerCore(OPTS, { ...env, post: async (...args) => { await new Promise<void>((r) => gates.push(r)); return env.post(...args); } });
  for (let i = 0; i < 20; i++) api.track('visitor');
  await site.settle();
  t.equal(gates.length, 1, 'a send is under way with the first 20');
  api.track('bot_open');
  let done = false;
  const flushed = api.flush().then(() => { done = true; });
  // Open each request as it comes: the flush must not resolve before the late event went out.
  while (!done) {
    gates.splice(0).forEach((open) => open());
    await site.settle();
  }
  await flushed;
  t.same(site.requests.map((r) => r.body.events.length), [20, 1], 'the event tracked during the send went too');
  t.same(site.queued(), [], 'delivered: nothing left');

  const down = new FakeSite();
  down.answer = () => 'network-error';
  const offline = createTrackerCore(OPTS, down.env()).api;
  offline.track('visitor');
  await offline.flush();
  t.equal(down.requests.length, 1, 'one attempt, then flush() resolves');
  t.equal(down.queued().length, 1, 'the event stays queued for the background retry');
  await offline.flush();
  t.equal(down.requests.length, 1, 'inside the back-off wait: no request, resolves at once');
  down.answer = (req) => ok200(req.body.events.length);
  await down.advance(300_000);
  t.same(down.queued(), [], 'the background retry delivers it');

  const denied = createTrackerCore({ ...OPTS, consent: 'denied' }, new FakeSite().env()).api;
  denied.track('visitor');
  await denied.flush();
  t.pass('denied: resolves at once, nothing to send');
});

t.test("holdout: inHoldout() and the hook tell the ingest's answer, never a guess", async (t) => {
  const site = new FakeSite();
  const told: boolean[] = [];
  let held = true;
  site.answer = (req) => ({ status: 200, body: { success: true, accepted: req.body.events.length, rejected: [], holdout: held } });
  const { api } = createTrackerCore(OPTS, site.env({ holdout: (h) => told.push(h) }));
  t.equal(api.inHoldout(), null, 'unknown before the ingest answered');
  api.track('visitor');
  await site.advance(2000);
  t.equal(api.inHoldout(), true);
  t.same(told, [true], 'the hook fired with the answer');
  held = false;
  api.track('bot_open');
  await api.flush();
  t.equal(api.inHoldout(), false, 'the latest answer wins');
  t.same(told, [true, false]);
  t.notOk(site.requests.some((r) => r.body.events.some((e) => 'holdout' in e || 'holdout' in e.data)), 'the tracker sends no arm: the ingest computes it');

  const none = new FakeSite();
  const other = createTrackerCore(OPTS, none.env({ holdout: (h) => told.push(h) })).api;
  other.track('visitor');
  await none.advance(2000);
  t.equal(other.inHoldout(), null, 'a chatbot without holdout: the answer has no arm, inHoldout() stays null');
  t.equal(told.length, 2);
});
