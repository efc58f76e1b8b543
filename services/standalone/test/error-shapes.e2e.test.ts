import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import { loadConfig } from '@chatlytics/core';
import { pino } from 'pino';
import { ErrorResponse } from '@chatlytics/dashboard';
import { trackResponseSchema } from '@chatlytics/ingest';
import { buildStandalone } from '../src/index.js';

/**
 * One error body shape per surface, checked over the whole composed application: every error
 * status a route declares in its schema (hence in the OpenAPI document) must be its surface's
 * error shape, and the errors actually answered (route errors and unknown routes alike) must
 * match that shape.
 */
type Json = Record<string, unknown>;
const stripDescriptions = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema, (k, v) => (k === 'description' ? undefined : v)));

/** The ingest's surface: tracking, and the orders routes (POST /api/orders, the shop receivers). */
const isTracking = (url: string) => /^\/api\/(analytics|events|save|orders|integrations)(\/|$)/.test(url);
const isOrders = (url: string) => /^\/api\/(orders|integrations)(\/|$)/.test(url);
/** Operational and protocol routes with their own documented bodies (readiness report, ClickHouse's protocol). */
const isOwnProtocol = (url: string) => /^\/(health|ready|metrics|docs|clickhouse)(\/|$)/.test(url);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-error-shapes-'));
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SESSION_SECRET: 'error-shapes-secret-'.padEnd(40, 'x') });
// Start-up is not what this measures: on a loaded 2-core machine plugins can exceed avvio's 10 s.
t.setTimeout(600_000);
const standalone = await buildStandalone(config, pino({ level: 'silent' }), { pluginTimeout: 120_000 });
const { app } = standalone;
await app.ready();
t.teardown(async () => {
  await standalone.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const ajv = new Ajv({ strict: false });
const trackingBody = ajv.compile(trackResponseSchema[400]);
const dashboardBody = ajv.compile(ErrorResponse);
const openapi = app.swagger() as { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema: unknown }> }> }>> };

/** A declared error body as the OpenAPI document shows it (swagger rewrites `const`, nullable types, ...). */
const declared = (url: string, method: string, status: number) =>
  stripDescriptions(openapi.paths[url]?.[method]?.responses?.[status]?.content?.['application/json']?.schema);

t.test('every declared error response is its surface\'s one error shape', async (t) => {
  // The references: the surfaces' exported error schemas, as the document shows them.
  const TRACKING = declared('/api/analytics/track', 'post', 400);
  const DASHBOARD = declared('/api/dashboard/chatbots', 'get', 401);
  t.ok(trackingBody({ success: false, error: { code: null, message: 'x' } }) && TRACKING, 'tracking reference');
  t.ok(dashboardBody({ success: false, message: 'x' }) && DASHBOARD, 'dashboard reference');
  let checked = 0;
  for (const [url, methods] of Object.entries(openapi.paths)) {
    if (isOwnProtocol(url)) continue;
    for (const [method, op] of Object.entries(methods)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (Number(status) < 400) continue;
        const schema = response.content?.['application/json']?.schema;
        t.ok(schema, `${method.toUpperCase()} ${url} ${status} declares a JSON body`);
        t.same(stripDescriptions(schema), isTracking(url) ? TRACKING : DASHBOARD, `${method.toUpperCase()} ${url} ${status}`);
        checked++;
      }
    }
  }
  t.ok(checked > 30, `${checked} declared error responses`);
});

/** A request per route that must fail, with the status it must fail with. */
function failingRequest(url: string, method: string): { url: string; status: number; headers?: Json; payload?: unknown } | null {
  const concrete = url.replace(/\{id\}/g, '00000000-0000-4000-8000-000000000000').replace(/\{token\}/g, 'x');
  // Orders routes authenticate before reading the body: nothing sent, 401.
  if (isOrders(url)) return { url: url.replace(/\{chatbot_id\}/g, '00000000-0000-4000-8000-000000000000'), status: 401, payload: {} };
  if (isTracking(url)) {
    if (method === 'options') return null;
    // The batch route refuses a body without an events array as malformed (400 ANALYTICS_001).
    if (url === '/api/analytics/batch') return { url, status: 400, payload: {} };
    return { url: concrete, status: 422, payload: method === 'post' ? {} : undefined };
  }
  // A JSON client without credentials (a browser's form post would be redirected instead).
  if (url.startsWith('/api/dashboard/') || url.startsWith('/app/')) return { url: concrete, status: 401, headers: { accept: 'application/json' } };
  // Redirect-style and auth JSON endpoints: a JSON client sending nothing gets 422.
  if (method === 'post' && ['/forgot-password', '/reset-password', '/api/auth/tokens', '/login'].includes(url)) {
    return { url, status: 422, headers: { accept: 'application/json' }, payload: {} };
  }
  return null;
}

t.test('every route\'s errors, and every unknown route, answer in the surface\'s shape', async (t) => {
  let sent = 0;
  for (const [url, methods] of Object.entries(openapi.paths)) {
    if (isOwnProtocol(url)) continue;
    for (const [method, op] of Object.entries(methods)) {
      const req = failingRequest(url, method);
      if (!req) continue;
      const res = await app.inject({ method: method.toUpperCase() as 'GET', url: req.url, headers: req.headers as Record<string, string>, payload: req.payload as object });
      const name = `${method.toUpperCase()} ${req.url}`;
      t.equal(res.statusCode, req.status, name);
      t.ok(op.responses?.[String(res.statusCode)], `${name}: ${res.statusCode} is declared`);
      const check = isTracking(url) ? trackingBody : dashboardBody;
      t.ok(check(res.json()), `${name}: ${res.body}`);
      sent++;
    }
  }
  t.ok(sent > 15, `${sent} routes made to fail`);

  const unknown: [string, Json, (body: unknown) => boolean][] = [
    ['/api/analytics/nope', {}, trackingBody],
    ['/api/events/nope', {}, trackingBody],
    ['/api/dashboard/nope', {}, dashboardBody],
    // /app/{chatbot} is a route (a chatbot's address, redirecting to its analytics after log-in): a path under /app no route has.
    ['/app/nope/nope/nope/nope', {}, dashboardBody],
    ['/nope', { accept: 'application/json' }, dashboardBody],
  ];
  for (const [url, headers, check] of unknown) {
    const res = await app.inject({ method: 'GET', url, headers: headers as Record<string, string> });
    t.equal(res.statusCode, 404, url);
    t.ok(check(res.json()), `${url}: ${res.body}`);
  }
  const page = await app.inject({ method: 'GET', url: '/nope', headers: { accept: 'text/html' } });
  t.equal(page.statusCode, 404);
  t.match(page.headers['content-type'], /text\/html/);
  t.match(page.body, /<h1>Not found\.<\/h1>/, 'a browser gets the pages\' error page');
});
