import t from 'tap';
import { TRACK_POST_PATHS, TRACK_GET_PATHS } from '../src/app.js';
import { buildIngest, TOKEN } from './helper.js';
import { rows } from './validation-rows.js';

const inject = async (app: Awaited<ReturnType<typeof buildIngest>>['app'], method: 'GET' | 'POST', url: string, body: Record<string, unknown>) => {
  if (method === 'POST') return app.inject({ method, url, payload: body });
  const query: Record<string, string> = {};
  if (body.event !== undefined) query.e = String(body.event);
  if (body.token !== undefined) query.u = String(body.token);
  if (body.data !== undefined) query.d = JSON.stringify(body.data);
  if (body.ab_test !== undefined) query.ab_test = String(body.ab_test);
  return app.inject({ method, url, query });
};

t.test('validation matrix through every alias and the GET form', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  const routes = [...TRACK_POST_PATHS.map((u) => ['POST', u] as const), ...TRACK_GET_PATHS.map((u) => ['GET', u] as const)];
  let accepted = 0;
  for (const [name, body, expect] of rows) {
    for (const [method, url] of routes) {
      // The GET form carries data as JSON text: an array there is "d not a JSON object", still ANALYTICS_001.
      const res = await inject(app, method, url, body);
      const label = `${name}: ${method} ${url}`;
      t.equal(res.statusCode, expect.status, label);
      const json = res.json();
      if (expect.status === 200) {
        accepted++;
        t.same(json, { success: true }, label);
        continue;
      }
      t.equal(json.success, false, label);
      t.type(json.error.message, 'string');
      if (expect.status === 400) t.equal(json.error.code, expect.code, label);
      if (expect.status === 422) {
        t.equal(json.error.code, null, label);
        t.same(Object.keys(json.errors).sort(), [...expect.fields].sort(), label);
      }
    }
  }
  t.equal(bus.events().length, accepted, 'exactly the accepted requests reached the bus');
});

t.test('the GET form and the POST form store the same event', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  const data = { chatbot_id: 'bot-1', popup_version: 'v2', items: [{ id: 'p1', price: '4.50', quantity: 2, currency: 'gbp' }], extra: 'kept' };
  const post = await app.inject({ method: 'POST', url: '/api/save', payload: { e: 'tracktrans', u: TOKEN, d: JSON.stringify(data), ab_test: true } });
  const get = await app.inject({ method: 'GET', url: `/api/events/track?e=tracktrans&u=${TOKEN}&ab_test=1&d=${encodeURIComponent(JSON.stringify(data))}` });
  t.equal(post.statusCode, 200);
  t.equal(get.statusCode, 200);
  t.equal(get.body, post.body);
  const [a, b] = bus.events();
  const strip = ({ event_id: _id, received_at: _at, ...rest }: Record<string, unknown>) => rest;
  t.same(strip(a), strip(b));
  t.match(a, { event: 'purchase', ab_group: 'control' /* TOKEN ends in 0 */, chatbot_id: 'bot-1', total_value: 9, currency: '' });
  t.equal(a.total_value_base, 9 * 1.17);
  t.same(JSON.parse(a.data), data);
});

t.test('a POST without a body reads the legacy query string', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: `/api/save?e=visitor&u=${TOKEN}` });
  t.equal(res.statusCode, 200);
  t.equal(bus.events()[0].event, 'visitor');
});

t.test('content types: sendBeacon text/plain, form fields, any other type as JSON', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  const body = JSON.stringify({ event: 'visitor', token: TOKEN, data: { chatbot_id: 'b' } });
  const beacon = await app.inject({ method: 'POST', url: '/api/analytics/track', headers: { 'content-type': 'text/plain;charset=UTF-8' }, payload: body });
  t.equal(beacon.statusCode, 200);
  const form = await app.inject({
    method: 'POST', url: '/api/events/track', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ e: 'bot_open', u: TOKEN, d: '{"chatbot_id":"b"}' }).toString(),
  });
  t.equal(form.statusCode, 200);
  const other = await app.inject({ method: 'POST', url: '/api/save', headers: { 'content-type': 'application/octet-stream' }, payload: body });
  t.equal(other.statusCode, 200, 'any other content type is read as JSON text');
  const empty = await app.inject({ method: 'POST', url: '/api/save', headers: { 'content-type': '' }, payload: body });
  t.equal(empty.statusCode, 400, 'an empty Content-Type header is not a media type');
  t.equal(empty.json().error.code, 'ANALYTICS_001');
  t.same(bus.events().map((e) => [e.event, e.chatbot_id]), [['visitor', 'b'], ['bot_open', 'b'], ['visitor', 'b']]);
});

t.test('server-side fields: received_at from the clock, user agent header, client hash without the IP', async (t) => {
  const { app, bus } = await buildIngest({ clock: () => new Date('2026-02-03T04:05:06.007Z') });
  t.teardown(() => app.close());
  await app.inject({ method: 'POST', url: '/api/analytics/track', headers: { 'user-agent': 'Widget/1.0' }, payload: { event: 'visitor', token: TOKEN }, remoteAddress: '198.51.100.23' });
  const [e] = bus.events();
  t.equal(e.received_at, '2026-02-03 04:05:06.007');
  t.equal(e.user_agent, 'Widget/1.0');
  t.match(e.client_hash, /^[0-9a-f]{32}$/);
  t.notMatch(JSON.stringify(e), /198\.51\.100\.23/);
});

t.test('is_bot: the User-Agent header classified (crawlers flagged, browsers not), on both routes', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
  const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
  for (const ua of [googlebot, chrome]) {
    const single = await app.inject({ method: 'POST', url: '/api/analytics/track', headers: { 'user-agent': ua }, payload: { event: 'visitor', token: TOKEN } });
    t.equal(single.statusCode, 200);
    const batch = await app.inject({ method: 'POST', url: '/api/analytics/batch', headers: { 'user-agent': ua }, payload: { events: [{ event: 'visitor', token: TOKEN }] } });
    t.equal(batch.statusCode, 200);
  }
  t.same(bus.events().map((e) => [e.user_agent === googlebot ? 'googlebot' : 'chrome', e.is_bot]),
    [['googlebot', true], ['googlebot', true], ['chrome', false], ['chrome', false]]);
});

t.test('HEAD is not a tracking route (no event from link checkers)', async (t) => {
  const { app, bus } = await buildIngest();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'HEAD', url: `/api/analytics/track?e=visitor&u=${TOKEN}` });
  t.equal(res.statusCode, 404);
  t.equal(bus.calls.length, 0);
});
