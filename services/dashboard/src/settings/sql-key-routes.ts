import Type from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import type { DashboardDeps } from '../deps.js';
import { Errors } from '../http/errors.js';
import { presentSqlKey, type SqlKeyRepository } from '../repositories/sql-key-repository.js';
import { ANY_CREDENTIAL_SECURITY, IdParams, Nullable, Success, errorResponses } from '../http/schemas.js';

/** Key names appear in the query log and in quota errors: plain words only. */
export const SQL_KEY_NAME = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_.@-]*$' });

const SqlKey = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  prefix: Type.String({ description: 'First characters of the key, to recognise it' }),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Nullable(Type.String({ format: 'date-time' })),
  revokedAt: Nullable(Type.String({ format: 'date-time' })),
  lastUsedAt: Nullable(Type.String({ format: 'date-time' })),
  queriesPerHour: Nullable(Type.Integer({ description: 'null: the configured default (SQL_QUOTA_QUERIES_PER_HOUR)' })),
  readRowsPerHour: Nullable(Type.Integer({ description: 'null: the configured default (SQL_QUOTA_READ_ROWS_PER_HOUR)' })),
}, { description: 'A key of the data team\'s SQL interface (/clickhouse)' });

const CreateBody = Type.Object({
  name: SQL_KEY_NAME,
  expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
  queriesPerHour: Type.Optional(Type.Integer({ minimum: 1 })),
  readRowsPerHour: Type.Optional(Type.Integer({ minimum: 1 })),
}, { additionalProperties: false });


/**
 * Management of the data team's SQL keys under /api/dashboard/sql-keys. Dashboard auth, and
 * the user must be listed in SQL_KEY_ADMINS: a SQL key reads every account's events, so an
 * account's own credentials are not enough (an account API key, having no user, never is).
 */
export const sqlKeyRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps; sqlKeys: SqlKeyRepository }> = async (app, { deps, sqlKeys }) => {
  const admins = new Set(deps.config.sql.keyAdmins);
  const requireAdmin = async (req: FastifyRequest) => {
    const { userId } = principalOf(req);
    const user = userId ? await deps.repos.users.findById(userId) : null;
    if (!user || !admins.has(user.email)) throw Errors.sqlKeysForbidden();
  };
  const common = { tags: ['sql-keys'], security: ANY_CREDENTIAL_SECURITY };

  app.get('/sql-keys', {
    config: { auth: 'credential' },
    preHandler: requireAdmin,
    schema: { ...common, summary: 'List SQL keys (revoked ones included)', response: { 200: Success(Type.Object({ keys: Type.Array(SqlKey) })), ...errorResponses(401, 403, 500) } },
  }, async () => ({ success: true as const, data: { keys: (await sqlKeys.list()).map(presentSqlKey) } }));

  app.post('/sql-keys', {
    config: { auth: 'credential' },
    preHandler: requireAdmin,
    schema: {
      ...common,
      summary: 'Create a SQL key; the key is in this response only',
      body: CreateBody,
      response: { 201: Success(Type.Object({ key: Type.Intersect([SqlKey, Type.Object({ key: Type.String({ description: 'cs_…; shown once' }) })]) })), ...errorResponses(401, 403, 422, 500) },
    },
  }, async (req, reply) => {
    const expiresAt = req.body.expiresAt ? new Date(req.body.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= deps.clock().getTime()) throw Errors.validation({ expiresAt: ['The expiry must be in the future.'] });
    const created = await sqlKeys.create({ ...req.body, expiresAt });
    if (!created) throw Errors.validation({ name: ['An active key already has this name.'] });
    reply.code(201);
    return { success: true as const, data: { key: { ...presentSqlKey(created), key: created.key } } };
  });

  app.delete('/sql-keys/:id', {
    config: { auth: 'credential' },
    preHandler: requireAdmin,
    schema: { ...common, summary: 'Revoke a SQL key (its next query gets 401)', params: IdParams, response: { 200: Success(Type.Object({ key: SqlKey })), ...errorResponses(401, 403, 404, 500) } },
  }, async (req) => {
    const revoked = await sqlKeys.revoke(req.params.id, deps.clock());
    if (!revoked) throw Errors.notFound();
    return { success: true as const, data: { key: presentSqlKey(revoked) } };
  });
};
