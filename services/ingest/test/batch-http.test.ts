import t from 'tap';
import { BATCH_LIMITS } from '../src/batch-schemas.js';
import { buildIngest, metricValue, TOKEN } from './helper.js';
import { rows } from './validation-rows.js';

const URL = '/api/analytics/batch';
const visitor = (n = 0) => ({ event: 'visitor', token: TOKEN, data: { chatbot_id: 'bot', n } });

t.test('each event of a batch is validated like the single route: the same table, in one batch', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: URL, payload: { events: rows.map(([, body]) => body) } });
  t.equal(res.statusCode, 200);
  const json = res.json();
  const expectedRejected = rows.flatMap(([name, , expect], index) => (expect.status === 200 ? [] : [{ name, index, expect }]));
  t.equal(json.success, true);
  t.equal(json.accepted, rows.length - expectedRejected.length);
  t.equal(json.rejected.length, expectedRejected.length);
  for (const [i, { name, index, expect }] of expectedRejected.entries()) {
    const r = json.rejected[i];
    t.equal(r.index, index, name);
    if (expect.status === 400) t.equal(r.code, expect.code, name);
    if (expect.status === 422) {
      t.equal(r.code, 'ANALYTICS_005', name);
      t.same(Object.keys(r.errors).sort(), [...expect.fields].sort(), name);
    }
  }
  t.equal(bus.events().length, json.accepted, 'exactly the accepted events reached the bus');
});

t.test('the client event_id, server fields and text/plain bodies', async (t) => {
  const { app, bus, registry } = await buildIngest({ clock: () => new Date('2026-02-03T04:05:06.007Z') });
  t.teardown(() => app.close());
  const id = '01890a5d-ac96-774b-bcce-b302099a8057';
  const payload = JSON.stringify({ dropped: 7, events: [{ ...visitor(), data: { event_id: id } }, { e: 'tracktrans', u: TOKEN, ab_test: true }] });
  const res = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': 'Shop/1' }, payload });
  t.same(res.json(), { success: true, accepted: 2, rejected: [] });
  const [a, b] = bus.events();
  t.equal(a.event_id, id, 'the client id is the stored id (deduplication key)');
  t.match(b, { event: 'purchase', ab_group: 'control', received_at: '2026-02-03 04:05:06.007', user_agent: 'Shop/1' });
  t.equal(await metricValue(registry, 'chatlytics_ingest_tracker_dropped_total'), 7, 'reported drops are counted');
  t.equal(await metricValue(registry, 'chatlytics_ingest_events_accepted_total'), 2);
});

t.test('malformed and oversized batches: 400 ANALYTICS_001 / ANALYTICS_002, nothing published', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  const cases: [string, string, string][] = [
    ['not JSON', '{"events": [', 'ANALYTICS_001'],
    ['an array body', JSON.stringify([visitor()]), 'ANALYTICS_001'],
    ['events not an array', JSON.stringify({ events: visitor() }), 'ANALYTICS_001'],
    ['no events', '{}', 'ANALYTICS_001'],
    ['101 events', JSON.stringify({ events: Array.from({ length: BATCH_LIMITS.maxEvents + 1 }, (_, i) => visitor(i)) }), 'ANALYTICS_002'],
    ['over 1 MB', JSON.stringify({ events: [{ ...visitor(), data: { p: 'x'.repeat(BATCH_LIMITS.maxBodyBytes) } }] }), 'ANALYTICS_002'],
  ];
  for (const [name, payload, code] of cases) {
    const res = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': 'application/json' }, payload });
    t.equal(res.statusCode, 400, name);
    t.equal(res.json().error.code, code, name);
  }
  t.equal(bus.calls.length, 0);
  const hundred = await app.inject({ method: 'POST', url: URL, payload: { events: Array.from({ length: 100 }, (_, i) => visitor(i)) } });
  t.same(hundred.json(), { success: true, accepted: 100, rejected: [] }, '100 events are allowed');
  const empty = await app.inject({ method: 'POST', url: URL, payload: { events: [] } });
  t.same(empty.json(), { success: true, accepted: 0, rejected: [] });
});

t.test('the 200 waits until the events are durable; a bus failure is a 503 with Retry-After', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  bus.hold();
  let answered = false;
  const pending = app.inject({ method: 'POST', url: URL, payload: { events: [visitor(1), visitor(2)] } }).then((r) => { answered = true; return r; });
  await new Promise((r) => setTimeout(r, 50));
  t.equal(answered, false, 'no answer while the bus has not acknowledged');
  bus.release();
  t.equal((await pending).statusCode, 200);
  bus.failure = new Error('disk full at /var/secret/path');
  const res = await app.inject({ method: 'POST', url: URL, payload: { events: [visitor(3)] } });
  t.equal(res.statusCode, 503);
  t.equal(res.headers['retry-after'], '5');
  t.equal(res.json().error.code, 'ANALYTICS_004');
  t.notMatch(res.body, /secret/);
});

t.test('a batch spends one event of the per-IP budget the other tracking routes share per event', async (t) => {
  const { app } = await buildIngest({ env: { TRACK_RATE_LIMIT_PER_MINUTE: '5' } });
  t.teardown(() => app.close());
  const statuses = [];
  statuses.push((await app.inject({ method: 'POST', url: '/api/analytics/track', payload: visitor() })).statusCode);
  statuses.push((await app.inject({ method: 'POST', url: URL, payload: { events: [visitor(1), visitor(2), visitor(3)] } })).statusCode);
  statuses.push((await app.inject({ method: 'GET', url: `/api/events/track?e=visitor&u=${TOKEN}` })).statusCode);
  const limited = await app.inject({ method: 'POST', url: URL, payload: { events: [visitor(4)] } });
  statuses.push(limited.statusCode);
  t.same(statuses, [200, 200, 200, 429], '1 + 3 + 1 events spend the 5');
  t.ok(Number(limited.headers['retry-after']) > 0);
  const script = await app.inject({ method: 'GET', url: '/tracker.js' });
  t.equal(script.statusCode, 200, 'loading the script spends no budget and is not refused');
});

t.test('origin rules as on the track route', async (t) => {
  const { app, bus } = await buildIngest({ env: { ALLOWED_ORIGINS: 'https://shop.test' } });
  t.teardown(() => app.close());
  const refused = await app.inject({ method: 'POST', url: URL, headers: { origin: 'https://evil.test' }, payload: { events: [visitor()] } });
  t.equal(refused.statusCode, 403);
  t.equal(refused.json().error.code, 'ANALYTICS_003');
  const ok = await app.inject({ method: 'POST', url: URL, headers: { origin: 'https://shop.test', 'content-type': 'text/plain' }, payload: JSON.stringify({ events: [visitor()] }) });
  t.equal(ok.statusCode, 200);
  t.equal(ok.headers['access-control-allow-origin'], 'https://shop.test');
  t.match(ok.headers['access-control-expose-headers'], /Retry-After/);
  const pre = await app.inject({ method: 'OPTIONS', url: URL, headers: { origin: 'https://shop.test', 'access-control-request-method': 'POST' } });
  t.equal(pre.statusCode, 204);
  t.equal(bus.events().length, 1);
});
