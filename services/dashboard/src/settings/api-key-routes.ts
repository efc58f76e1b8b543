import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import type { DashboardDeps } from '../deps.js';
import { Errors } from '../http/errors.js';
import { presentApiKey } from '../repositories/credential-repository.js';
import { ANY_CREDENTIAL_SECURITY, IdParams, Nullable, Success, errorResponses } from '../http/schemas.js';

const ApiKey = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  prefix: Type.String({ description: 'First characters of the key, to recognise it' }),
  scope: Type.Union([Type.Literal('read'), Type.Literal('manage')], { description: '`read`: statistics and listings (GET) only; `manage`: every route' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Nullable(Type.String({ format: 'date-time', description: 'Refreshed at most once a minute' })),
}, { description: "An API key of the caller's account (ck_…)" });

/** The rules of a new key; the settings page (settings/routes.ts) checks its form against them too. */
export const ApiKeyCreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'What the key is for, e.g. `shop backend`' }),
  scope: Type.Optional(Type.Union([Type.Literal('read'), Type.Literal('manage')], {
    default: 'read', description: '`read` (default): statistics and listings only; `manage`: also creates, changes and deletes',
  })),
}, { additionalProperties: false });

/**
 * The account's API keys under /api/dashboard/api-keys: created (the key shown in that answer
 * only, its SHA-256 digest stored), listed, revoked. Scoped to the caller's account like every
 * dashboard route: another account's key id answers 404.
 */
export const apiKeyRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps }> = async (app, { deps }) => {
  const { credentials } = deps.repos;
  const common = { tags: ['api-keys'], security: ANY_CREDENTIAL_SECURITY };

  app.get('/api-keys', {
    config: { auth: 'credential' },
    schema: { ...common, summary: "List the account's API keys (never the keys themselves)", response: { 200: Success(Type.Object({ keys: Type.Array(ApiKey) })), ...errorResponses(401, 500) } },
  }, async (req) => ({ success: true as const, data: { keys: (await credentials.listApiKeys(principalOf(req).accountId)).map(presentApiKey) } }));

  app.post('/api-keys', {
    config: { auth: 'credential' },
    schema: {
      ...common,
      summary: 'Create an API key; the key is in this response only',
      body: ApiKeyCreateBody,
      response: { 201: Success(Type.Object({ key: Type.Intersect([ApiKey, Type.Object({ key: Type.String({ description: 'ck_…; shown once' }) })]) })), ...errorResponses(400, 401, 403, 415, 422, 500) },
      description: 'Needs a `manage` key, an auth token or a session: a `read` key gets 403.',
    },
  }, async (req, reply) => {
    const created = await credentials.createApiKey({ accountId: principalOf(req).accountId, name: req.body.name.trim(), scope: req.body.scope ?? 'read' });
    reply.code(201);
    return { success: true as const, data: { key: { ...presentApiKey(created), key: created.key } } };
  });

  app.delete('/api-keys/:id', {
    config: { auth: 'credential' },
    schema: { ...common, summary: 'Revoke an API key (its next request gets 401); a `read` key gets 403', params: IdParams, response: { 200: Success(Type.Object({ key: ApiKey })), ...errorResponses(401, 403, 404, 500) } },
  }, async (req) => {
    const revoked = await credentials.revokeApiKey(principalOf(req).accountId, req.params.id);
    if (!revoked) throw Errors.notFound();
    return { success: true as const, data: { key: presentApiKey(revoked) } };
  });
};
