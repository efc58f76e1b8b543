import t from 'tap';
import { loadConfig } from '../src/config.js';
import { createHttpServer } from '../src/http-server.js';
import { createMetricsRegistry } from '../src/metrics.js';
import { opsPlugin } from '../src/ops-plugin.js';

const TOKEN = 'metrics-token-0123456789';
const PUBLIC_PEER = '203.0.113.7';

async function app(t: { teardown(fn: () => unknown): void }, env: Record<string, string> = {}) {
  const config = loadConfig({ DATA_DIR: '/tmp/unused', LOG_LEVEL: 'silent', ...env });
  const server = await createHttpServer({ title: 'ops', config });
  await server.register(opsPlugin, { registry: createMetricsRegistry(), checks: [], metricsToken: config.metricsToken });
  t.teardown(() => server.close());
  return server;
}

t.test('without METRICS_TOKEN /metrics answers loopback peers only; /docs stays public', async (t) => {
  const s = await app(t);
  t.equal((await s.inject({ url: '/metrics', remoteAddress: '127.0.0.1' })).statusCode, 200, 'this host');
  t.equal((await s.inject({ url: '/metrics', remoteAddress: '::1' })).statusCode, 200, 'this host over IPv6');
  t.equal((await s.inject({ url: '/metrics', remoteAddress: PUBLIC_PEER })).statusCode, 404, 'a public peer');
  const proxied = await s.inject({ url: '/metrics', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': PUBLIC_PEER } });
  t.equal(proxied.statusCode, 404, 'a request a reverse proxy on this host forwarded');
  t.equal((await s.inject({ url: '/metrics', remoteAddress: '127.0.0.1', headers: { forwarded: `for=${PUBLIC_PEER}` } })).statusCode, 404, 'Forwarded too');
  t.notMatch(proxied.body, /chatlytics|process_/, 'nothing of the metrics leaks');
  t.equal((await s.inject({ url: '/docs/json', remoteAddress: PUBLIC_PEER })).statusCode, 200, '/docs is the public API reference');
  t.equal((await s.inject({ url: '/health', remoteAddress: PUBLIC_PEER })).statusCode, 200);
});

t.test('with METRICS_TOKEN /metrics needs it as a Bearer token, from anywhere', async (t) => {
  const s = await app(t, { METRICS_TOKEN: TOKEN });
  const get = (authorization?: string, remoteAddress = PUBLIC_PEER) =>
    s.inject({ url: '/metrics', remoteAddress, headers: authorization === undefined ? {} : { authorization } });
  const ok = await get(`Bearer ${TOKEN}`);
  t.equal(ok.statusCode, 200);
  t.match(ok.body, /chatlytics_http_requests_total/);
  for (const [what, header] of [['none', undefined], ['wrong', 'Bearer metrics-token-0123456788'], ['a prefix', `Bearer ${TOKEN.slice(0, -1)}`],
    ['longer', `Bearer ${TOKEN}x`], ['not Bearer', TOKEN]] as const) {
    const res = await get(header);
    t.equal(res.statusCode, 401, `${what}: 401`);
    t.equal(res.headers['www-authenticate'], 'Bearer');
    t.notMatch(res.body, /chatlytics_/);
  }
  t.equal((await get(undefined, '127.0.0.1')).statusCode, 401, 'loopback needs the token too once one is set');
  t.equal((await s.inject({ url: '/docs/json', remoteAddress: PUBLIC_PEER })).statusCode, 200, '/docs needs none');
});

t.test('METRICS_TOKEN shorter than 16 characters stops start-up', async (t) => {
  t.throws(() => loadConfig({ DATA_DIR: '/tmp/unused', METRICS_TOKEN: 'short' }), /METRICS_TOKEN/);
});
