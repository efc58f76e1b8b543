import t from 'tap';
import { buildIngest, TOKEN } from './helper.js';

const event = { event: 'visitor', token: TOKEN };

t.test('all aliases and both forms share one per-IP budget; beyond it 429 with Retry-After', async (t) => {
  const { app, bus } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '5' } });
  t.teardown(() => app.close());
  const requests = [
    () => app.inject({ method: 'POST', url: '/api/analytics/track', payload: event }),
    () => app.inject({ method: 'POST', url: '/api/events/track', payload: event }),
    () => app.inject({ method: 'POST', url: '/api/save', payload: event }),
    () => app.inject({ method: 'GET', url: `/api/analytics/track?e=visitor&u=${TOKEN}` }),
    () => app.inject({ method: 'GET', url: `/api/events/track?e=visitor&u=${TOKEN}` }),
  ];
  for (const send of requests) t.equal((await send()).statusCode, 200);
  for (const send of requests) {
    const res = await send();
    t.equal(res.statusCode, 429);
    t.same(res.json(), { success: false, error: { code: null, message: 'Too many requests.' } });
    const retryAfter = Number(res.headers['retry-after']);
    t.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  }
  t.equal(bus.calls.flat().length, 5);
  const other = await app.inject({ method: 'POST', url: '/api/save', payload: {}, remoteAddress: '192.0.2.9' });
  t.equal(other.statusCode, 422, 'another IP has its own budget');
});

t.test('X-Forwarded-For is ignored without trustProxy: one budget for the proxy address', async (t) => {
  const { app } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '2' } });
  t.teardown(() => app.close());
  const statuses = [];
  for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
    const res = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: event, headers: { 'x-forwarded-for': ip } });
    statuses.push(res.statusCode);
  }
  t.same(statuses, [200, 200, 429], 'spoofed addresses do not buy a fresh budget');
});

t.test('X-Forwarded-For is believed from a trusted proxy: one budget per client', async (t) => {
  const { app, bus } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '2' }, trustProxy: ['127.0.0.1'] });
  t.teardown(() => app.close());
  const send = (ip: string) => app.inject({ method: 'POST', url: '/api/analytics/track', payload: event, headers: { 'x-forwarded-for': ip } });
  t.same([(await send('203.0.113.1')).statusCode, (await send('203.0.113.1')).statusCode, (await send('203.0.113.1')).statusCode], [200, 200, 429]);
  t.equal((await send('203.0.113.2')).statusCode, 200, 'another client behind the proxy is not throttled');
  const [a, , b] = bus.events();
  t.not(a.client_hash, b.client_hash, 'the client hash follows the forwarded address');
  const untrusted = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: event, headers: { 'x-forwarded-for': '203.0.113.9' }, remoteAddress: '10.9.9.9' });
  t.equal(untrusted.statusCode, 200);
  const fromUntrusted = bus.events().at(-1)!;
  t.not(fromUntrusted.client_hash, a.client_hash);
});

t.test('preflights do not consume the budget', async (t) => {
  const { app } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '1' } });
  t.teardown(() => app.close());
  for (let i = 0; i < 3; i++) {
    const pre = await app.inject({ method: 'OPTIONS', url: '/api/analytics/track', headers: { origin: 'https://shop.test', 'access-control-request-method': 'POST' } });
    t.equal(pre.statusCode, 204);
  }
  t.equal((await app.inject({ method: 'POST', url: '/api/analytics/track', payload: event })).statusCode, 200);
});

// The budget's headers, windows and keys as @fastify/rate-limit gave them (the ingest now runs
// its store in a synchronous hook, src/rate-limit.ts): these pass against the plugin too.
t.test('every counted response carries the budget headers; the 429 too, with Retry-After', async (t) => {
  const { app } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '2' } });
  t.teardown(() => app.close());
  const send = () => app.inject({ method: 'POST', url: '/api/analytics/track', payload: event });
  const first = await send();
  t.equal(first.statusCode, 200);
  t.match(first.headers, { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '60' });
  t.match((await send()).headers, { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0' });
  const refused = await send();
  t.equal(refused.statusCode, 429);
  t.match(refused.headers, { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0' });
  t.equal(refused.headers['retry-after'], refused.headers['x-ratelimit-reset'], 'Retry-After is the time left in the window');
  const invalid = await app.inject({ method: 'POST', url: '/api/save', payload: {}, remoteAddress: '192.0.2.10' });
  t.equal(invalid.statusCode, 422);
  t.equal(invalid.headers['x-ratelimit-remaining'], '1', 'a refused payload spends the budget too');
});

t.test('a fresh window resets in 60 s whatever the clock reads (no float rounding up to 61)', async (t) => {
  // (t + 60000) - t is 60000.00000000006 at this reading of performance.now().
  const now = 524074.93352375267;
  t.not((now + 60_000) - now, 60_000, 'the clock value still shows the float error');
  const { app } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '2' }, rateLimit: { now: () => now } });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: event });
  t.equal(res.headers['x-ratelimit-reset'], '60');
});

t.test('the batch route shares the budget; /tracker.js and preflights do not spend it', async (t) => {
  const { app } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '2' } });
  t.teardown(() => app.close());
  for (let i = 0; i < 3; i++) {
    const script = await app.inject({ method: 'GET', url: '/tracker.js' });
    t.equal(script.statusCode, 200);
    t.notOk('x-ratelimit-limit' in script.headers, 'the script is not counted');
  }
  const batch = await app.inject({ method: 'POST', url: '/api/analytics/batch', payload: { events: [event] } });
  t.equal(batch.statusCode, 200);
  t.equal(batch.headers['x-ratelimit-remaining'], '1', 'a batch of one event costs one');
  t.equal((await app.inject({ method: 'POST', url: '/api/analytics/track', payload: event })).statusCode, 200);
  t.equal((await app.inject({ method: 'POST', url: '/api/analytics/batch', payload: { events: [event] } })).statusCode, 429);
});

t.test('IPv6 clients are budgeted per /64; IPv4-mapped addresses as their IPv4', async (t) => {
  const { app } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '1' } });
  t.teardown(() => app.close());
  const from = (remoteAddress: string) => app.inject({ method: 'POST', url: '/api/analytics/track', payload: event, remoteAddress });
  t.equal((await from('2001:db8:1:2::1')).statusCode, 200);
  t.equal((await from('2001:db8:1:2::ffff')).statusCode, 429, 'same /64');
  t.equal((await from('2001:db8:1:3::1')).statusCode, 200, 'another /64');
  t.equal((await from('198.51.100.7')).statusCode, 200);
  t.equal((await from('::ffff:198.51.100.7')).statusCode, 429, 'the mapped form is the same client');
});

t.test('a batch costs one event of the budget per event; one that does not fit is refused whole', async (t) => {
  const { app, bus } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '150' } });
  t.teardown(() => app.close());
  const batch = (n: number) => app.inject({ method: 'POST', url: '/api/analytics/batch', payload: { events: Array.from({ length: n }, () => event) } });
  const hundred = await batch(100);
  t.equal(hundred.statusCode, 200);
  t.equal(hundred.headers['x-ratelimit-remaining'], '50', 'a batch of 100 events costs 100');
  const tooMany = await batch(60);
  t.equal(tooMany.statusCode, 429, '60 events do not fit in the 50 left');
  t.same(tooMany.json(), { success: false, error: { code: null, message: 'Too many requests.' } });
  const retryAfter = Number(tooMany.headers['retry-after']);
  t.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  t.equal(bus.events().length, 100, 'nothing of the refused batch was published');
  t.equal((await batch(49)).headers['x-ratelimit-remaining'], '0', 'the refused batch spent only its first event: 49 still fit');
  t.equal((await app.inject({ method: 'POST', url: '/api/analytics/track', payload: event })).statusCode, 429, 'the budget is spent');
});

t.test('a batch larger than the whole budget passes in a fresh window (costs the whole budget)', async (t) => {
  let now = 0;
  const { app } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '10' }, rateLimit: { now: () => now } });
  t.teardown(() => app.close());
  const batch = () => app.inject({ method: 'POST', url: '/api/analytics/batch', payload: { events: Array.from({ length: 30 }, () => event) } });
  const first = await batch();
  t.equal(first.statusCode, 200);
  t.equal(first.headers['x-ratelimit-remaining'], '0');
  t.equal((await batch()).statusCode, 429);
  now += 60_000;
  t.equal((await batch()).statusCode, 200, 'the tracker resending after Retry-After gets through');
});

t.test('a flood of 10,000 distinct IPv6 /64s does not reset a spent budget', async (t) => {
  const { app } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '3' } });
  t.teardown(() => app.close());
  const from = (remoteAddress: string) => app.inject({ method: 'POST', url: '/api/analytics/track', payload: event, remoteAddress });
  const victim = '198.51.100.20';
  for (let i = 0; i < 3; i++) t.equal((await from(victim)).statusCode, 200);
  t.equal((await from(victim)).statusCode, 429, 'spent');
  for (let i = 0; i < 10_000; i++) {
    const res = await from(`2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`);
    if (res.statusCode !== 200) { t.fail(`flood request ${i}: ${res.statusCode}`); break; }
  }
  t.equal((await from(victim)).statusCode, 429, 'still spent after the flood (LocalStore forgot it after 5,000 keys)');
});

t.test('a full store refuses clients it does not know, and keeps every budget it holds', async (t) => {
  let now = 0;
  const { app } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '2' }, rateLimit: { maxKeys: 3, now: () => now } });
  t.teardown(() => app.close());
  const from = (remoteAddress: string) => app.inject({ method: 'POST', url: '/api/analytics/track', payload: event, remoteAddress });
  t.equal((await from('192.0.2.1')).statusCode, 200);
  t.equal((await from('192.0.2.1')).statusCode, 200);
  now = 10_000;
  t.equal((await from('192.0.2.2')).statusCode, 200);
  t.equal((await from('192.0.2.3')).statusCode, 200);
  const newcomer = await from('192.0.2.4');
  t.equal(newcomer.statusCode, 429, 'full: a newcomer is refused');
  t.equal(newcomer.headers['retry-after'], '50', 'until the oldest window ends');
  t.equal((await from('192.0.2.1')).statusCode, 429, 'the spent budget is still spent');
  t.equal((await from('192.0.2.2')).statusCode, 200, 'a held budget still counts');
  now = 60_000;
  t.equal((await from('192.0.2.4')).statusCode, 200, 'the oldest window ended: room for the newcomer');
  t.equal((await from('192.0.2.1')).statusCode, 429, 'full again: the client whose window ended is a newcomer now');
  now = 70_000;
  t.equal((await from('192.0.2.1')).statusCode, 200, 'a fresh window once the next ones ended');
});
