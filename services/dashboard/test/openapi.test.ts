import t from 'tap';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import { loadConfig } from '@chatlytics/core';
import type { Postgres } from '@chatlytics/postgres';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import dashboardApp, { dashboardSecuritySchemes } from '../src/index.js';

t.test('every dashboard route documents its responses, errors included, and the OpenAPI document generates', async (t) => {
  const app = Fastify({ pluginTimeout: 120_000 }); // see helper.ts: start-up time is not under test
  t.teardown(() => app.close());
  await app.register(swagger, { openapi: { info: { title: 'Chatlytics', version: '0' }, components: { securitySchemes: dashboardSecuritySchemes } } });
  // Route registration touches no database; the docs need only the schemas.
  const postgres = { kind: 'embedded', db: {} } as unknown as Postgres;
  await app.register(dashboardApp, { config: loadConfig({ SESSION_SECRET: 's'.repeat(32) }, '/tmp'), postgres });
  await app.ready();
  const doc = app.swagger() as unknown as { paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, unknown>; security?: unknown }>> };

  const expected: Record<string, { method: string; statuses: string[] }> = {
    '/api/dashboard/chatbots': { method: 'get', statuses: ['200', '401'] },
    '/api/dashboard/chatbots/{id}': { method: 'get', statuses: ['200', '401', '404'] },
    '/api/dashboard/api-keys': { method: 'post', statuses: ['201', '401', '422', '500'] },
    '/api/dashboard/api-keys/{id}': { method: 'delete', statuses: ['200', '401', '404', '500'] },
    '/api/dashboard/data-sources': { method: 'get', statuses: ['200', '401'] },
    '/api/dashboard/data-sources/{id}': { method: 'get', statuses: ['200', '401', '404'] },
    '/app/data-sources/search-test': { method: 'post', statuses: ['200', '401', '403', '404', '422', '500'] },
    '/api/dashboard/chatbots#post': { method: 'post', statuses: ['201', '401', '403', '422', '500'] },
    '/login': { method: 'post', statuses: ['200', '302', '403', '422', '429'] },
    '/logout': { method: 'post', statuses: ['200', '302', '403'] },
    '/api/auth/tokens': { method: 'post', statuses: ['201', '403', '422', '429'] },
    '/api/auth/tokens#get': { method: 'get', statuses: ['200', '401', '403'] },
    '/api/auth/tokens/{id}': { method: 'delete', statuses: ['200', '401', '403', '404'] },
    '/api/dashboard/api-keys#post403': { method: 'post', statuses: ['403'] },
  };
  for (const [path, { method, statuses }] of Object.entries(expected)) {
    const op = doc.paths[path.split('#')[0]]?.[method];
    t.ok(op, `${method} ${path} is documented`);
    if (!op) continue;
    t.ok(op.tags?.length, `${path} has tags`);
    for (const s of statuses) t.ok(op.responses[s], `${method} ${path} documents ${s}`);
  }
  t.same(doc.paths['/app/data-sources/search-test'].post.security, [{ sessionCookie: [] }]);
  t.same(doc.paths['/api/dashboard/api-keys'].get.security, [{ bearerAuth: [] }, { apiKeyHeader: [] }, { sessionCookie: [] }]);
  const body = JSON.stringify(doc.paths['/api/dashboard/api-keys'].post);
  t.match(body, /"scope"/, 'a new key documents its scope');
  t.match(body, /"manage"/);
  t.match(JSON.stringify(doc.paths['/api/auth/tokens'].get.responses['200']), /"expiresAt".*"current"/, 'the token list documents expiry and current');
});

t.test('the statistics routes document their CSV form', async (t) => {
  const app = Fastify({ pluginTimeout: 120_000 });
  t.teardown(() => app.close());
  await app.register(swagger, { openapi: { info: { title: 'Chatlytics', version: '0' }, components: { securitySchemes: dashboardSecuritySchemes } } });
  const postgres = { kind: 'embedded', db: {} } as unknown as Postgres;
  const clickhouse = {} as unknown as ClickHouseEngine;
  await app.register(dashboardApp, { config: loadConfig({ SESSION_SECRET: 's'.repeat(32) }, '/tmp'), postgres, clickhouse });
  await app.ready();
  type Op = { parameters?: { name: string; in: string; schema: { enum?: string[]; anyOf?: { const?: string; enum?: string[] }[] } }[]; responses: Record<string, { content?: Record<string, unknown> }> };
  const doc = app.swagger() as unknown as { paths: Record<string, { get: Op }> };
  const stats = Object.keys(doc.paths).filter((p) => p.startsWith('/api/dashboard/analytics/stats/'));
  t.ok(stats.length >= 5, stats.join(' '));
  for (const path of stats) {
    const op = doc.paths[path].get;
    t.same(Object.keys(op.responses['200'].content ?? {}).sort(), ['application/json', 'text/csv'], `${path}: JSON or CSV`);
    const format = op.parameters?.find((p) => p.name === 'format' && p.in === 'query');
    t.ok(format, `${path} documents ?format`);
    t.match(JSON.stringify(format?.schema), /"csv"/, `${path}: format=csv`);
    t.ok(op.responses['401'] && op.responses['404'] && op.responses['422'], `${path} errors`);
  }
});
