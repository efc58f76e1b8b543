import t from 'tap';
import { createOriginPolicy } from '../src/origin-policy.js';
import { buildIngest, TOKEN } from './helper.js';

t.test('origin policy matching rules', async (t) => {
  const open = createOriginPolicy(undefined);
  t.ok(open.allowsAll);
  t.ok(open.isAllowed('https://anything.test'));
  t.ok(createOriginPolicy(['https://a.test', '*']).allowsAll, '* anywhere allows all');

  const p = createOriginPolicy(['https://shop.test', 'localhost:5173', '*.example.com', 'https://*.secure.test', 'HTTPS://UPPER.TEST/']);
  t.notOk(p.allowsAll);
  const cases: [string, boolean][] = [
    ['https://shop.test', true],
    ['http://shop.test', false],
    ['https://shop.test:8443', false],
    ['https://www.shop.test', false],
    ['http://localhost:5173', true],
    ['https://localhost:5173', true],
    ['http://localhost:5174', false],
    ['https://a.example.com', true],
    ['http://a.b.example.com', true],
    ['https://example.com', false],
    ['https://evilexample.com', false],
    ['https://example.com.evil.test', false],
    ['https://a.example.com:8080', false],
    ['https://x.secure.test', true],
    ['http://x.secure.test', false],
    ['https://upper.test', true],
    ['null', false],
    ['', false],
    ['javascript://shop.test', false],
    ['https://user@shop.test', false],
    ['https://shop.test/path', false],
  ];
  for (const [origin, allowed] of cases) t.equal(p.isAllowed(origin), allowed, origin || '(empty)');
});

const event = { event: 'visitor', token: TOKEN };

t.test('ALLOWED_ORIGINS set: allowed origin gets CORS headers, another gets 403 ANALYTICS_003, no Origin is allowed', async (t) => {
  const { app, bus } = await buildIngest({ env: { ALLOWED_ORIGINS: 'https://shop.test,*.example.com' } });
  t.teardown(() => app.close());
  const allowed = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: event, headers: { origin: 'https://eu.example.com' } });
  t.equal(allowed.statusCode, 200);
  t.equal(allowed.headers['access-control-allow-origin'], 'https://eu.example.com');
  t.match(allowed.headers.vary, /Origin/);
  t.equal(allowed.headers['access-control-expose-headers'], 'Retry-After');

  for (const [method, url] of [['POST', '/api/save'], ['GET', `/api/events/track?e=visitor&u=${TOKEN}`]] as const) {
    const denied = await app.inject({ method, url, payload: method === 'POST' ? event : undefined, headers: { origin: 'https://evil.test' } });
    t.equal(denied.statusCode, 403);
    t.same(denied.json(), { success: false, error: { code: 'ANALYTICS_003', message: 'Origin not allowed.' } });
    t.notOk(denied.headers['access-control-allow-origin']);
  }

  const noOrigin = await app.inject({ method: 'POST', url: '/api/events/track', payload: event });
  t.equal(noOrigin.statusCode, 200, 'server-to-server calls without Origin are allowed');
  t.equal(bus.calls.flat().length, 2);

  const invalidFromAllowed = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: {}, headers: { origin: 'https://shop.test' } });
  t.equal(invalidFromAllowed.statusCode, 422);
  t.equal(invalidFromAllowed.headers['access-control-allow-origin'], 'https://shop.test', 'errors are readable by the widget');
});

t.test('preflight: answered for allowed origins, refused for others', async (t) => {
  const { app } = await buildIngest({ env: { ALLOWED_ORIGINS: 'https://shop.test' } });
  t.teardown(() => app.close());
  for (const url of ['/api/analytics/track', '/api/events/track', '/api/save']) {
    const ok = await app.inject({
      method: 'OPTIONS', url,
      headers: { origin: 'https://shop.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    t.equal(ok.statusCode, 204, url);
    t.equal(ok.headers['access-control-allow-origin'], 'https://shop.test');
    t.match(ok.headers['access-control-allow-methods'], /POST/);
    t.equal(ok.headers['access-control-allow-headers'], 'content-type');
    t.ok(Number(ok.headers['access-control-max-age']) > 0);
  }
  const denied = await app.inject({ method: 'OPTIONS', url: '/api/analytics/track', headers: { origin: 'https://evil.test', 'access-control-request-method': 'POST' } });
  t.equal(denied.statusCode, 403);
  t.equal(denied.json().error.code, 'ANALYTICS_003');
});

t.test('ALLOWED_ORIGINS unset: every origin, answered with *', async (t) => {
  const { app } = await buildIngest();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: event, headers: { origin: 'https://any.test' } });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['access-control-allow-origin'], '*');
  const pre = await app.inject({ method: 'OPTIONS', url: '/api/save', headers: { origin: 'https://any.test', 'access-control-request-method': 'POST' } });
  t.equal(pre.statusCode, 204);
  t.equal(pre.headers['access-control-allow-origin'], '*');
  t.equal(pre.headers['access-control-allow-headers'], 'Content-Type');
});
