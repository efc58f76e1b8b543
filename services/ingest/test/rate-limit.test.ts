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

t.test('the batch route shares the budget; /tracker.js and preflights do not spend it', async (t) => {
  const { app } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '2' } });
  t.teardown(() => app.close());
  for (let i = 0; i < 3; i++) {
    const script = await app.inject({ method: 'GET', url: '/tracker.js' });
    t.equal(script.statusCode, 200);
    t.notOk('x-ratelimit-limit' in script.headers, 'the script is not counted');
  }
  const batch = await app.inject({ method: 'POST', url: '/api/analytics/batch', payload: { events: [event, event] } });
  t.equal(batch.statusCode, 200);
  t.equal(batch.headers['x-ratelimit-remaining'], '1', 'one batch is one request');
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
