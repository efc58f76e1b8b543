import t from 'tap';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import { loadConfig } from '@chatlytics/core';
import type { Postgres } from '@chatlytics/postgres';
import dashboardApp, { dashboardSecuritySchemes } from '../src/index.js';

t.test('the password reset routes and pages document their responses, errors included', async (t) => {
  const app = Fastify({ pluginTimeout: 120_000 });
  t.teardown(() => app.close());
  await app.register(swagger, { openapi: { info: { title: 'Chatlytics', version: '0' }, components: { securitySchemes: dashboardSecuritySchemes } } });
  // Registration touches no database (and the worker is off): the docs need only the schemas.
  const postgres = { kind: 'embedded', db: {} } as unknown as Postgres;
  await app.register(dashboardApp, { config: loadConfig({ SESSION_SECRET: 's'.repeat(32) }, '/tmp'), postgres, passwordReset: { mail: { worker: false } } });
  await app.ready();
  const doc = app.swagger() as unknown as { paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, unknown> }>> };
  const expected: Record<string, { method: string; statuses: string[] }> = {
    '/forgot-password': { method: 'post', statuses: ['200', '302', '403', '422', '429', '500'] },
    '/app/send-password-reset': { method: 'post', statuses: ['200', '302', '401', '403', '429', '500'] },
    '/reset-password': { method: 'post', statuses: ['200', '302', '403', '422', '429', '500'] },
    '/reset-password/{token}': { method: 'get', statuses: ['200'] },
    '/login': { method: 'get', statuses: ['200', '302'] },
    '/settings/profile': { method: 'get', statuses: ['200', '302'] },
  };
  for (const [path, { method, statuses }] of Object.entries(expected)) {
    const op = doc.paths[path]?.[method];
    t.ok(op, `${method} ${path} is documented`);
    if (!op) continue;
    t.ok(op.tags?.length, `${path} has tags`);
    for (const s of statuses) t.ok(op.responses[s], `${method} ${path} documents ${s}`);
  }
});
