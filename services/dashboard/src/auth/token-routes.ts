import Type from 'typebox';
import { DAY_MS } from '@chatlytics/core';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from './auth-plugin.js';
import type { LoginThrottle } from './login-throttle.js';
import type { DashboardDeps } from '../deps.js';
import { Errors } from '../http/errors.js';
import { presentAuthToken } from '../repositories/credential-repository.js';
import { ANY_CREDENTIAL_SECURITY, IdParams, Nullable, Success, errorResponses } from '../http/schemas.js';
import { Credentials, throttledLogIn } from './log-in.js';

export const AuthToken = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String({ description: 'The label given when it was issued' }),
  prefix: Type.String({ description: 'First characters of the token (`ct_` alone for tokens issued before they were kept)' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Nullable(Type.String({ format: 'date-time', description: 'Refreshed at most once a minute' })),
  expiresAt: Type.String({ format: 'date-time', description: 'After this the token gets 401' }),
  current: Type.Boolean({ description: 'The token this request was made with' }),
}, { description: "An auth token of the caller (ct_…), never the token itself" });

/** Same headers as every credential, but only an auth token or a session (a person) passes: an API key gets 403. */
const USER_SECURITY = ANY_CREDENTIAL_SECURITY;

/**
 * Personal auth tokens (`ct_…`): issued for an e-mail and password (throttled like the log-in
 * form), valid AUTH_TOKEN_TTL_DAYS, listed and revoked by their user (see the authentication
 * rules in services/dashboard/README.md).
 */
export const authTokenRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps; throttle: LoginThrottle }> = async (app, { deps, throttle }) => {
  const { credentials } = deps.repos;
  const tags = ['auth'];

  app.post('/api/auth/tokens', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'Issue a personal auth token (ct_…) for the Authorization or X-API-Key header',
      body: Type.Object({ ...Credentials, name: Type.Optional(Type.String({ maxLength: 255, description: 'Label of the token' })) }),
      response: {
        201: Type.Object({ success: Type.Literal(true), data: Type.Object({
          token: Type.String({ description: 'Shown once' }),
          id: Type.String({ format: 'uuid' }),
          expiresAt: Type.String({ format: 'date-time' }),
        }) }),
        ...errorResponses(403, 422, 429, 500),
      },
    },
  }, async (req, reply) => {
    const user = await throttledLogIn(deps, throttle, req, reply, req.body.email, req.body.password);
    if (!user) throw Errors.badCredentials();
    const expiresAt = new Date(deps.clock().getTime() + deps.config.authTokenTtlDays * DAY_MS);
    const created = await credentials.createAuthToken({ userId: user.id, name: req.body.name, expiresAt });
    reply.code(201);
    return { success: true as const, data: { token: created.token, id: created.id, expiresAt: created.expiresAt.toISOString() } };
  });

  app.get('/api/auth/tokens', {
    config: { auth: 'user' },
    schema: {
      tags, security: USER_SECURITY,
      summary: "List the caller's auth tokens that have not expired, newest first (never the tokens themselves)",
      response: { 200: Success(Type.Object({ tokens: Type.Array(AuthToken) })), ...errorResponses(401, 403, 500) },
    },
  }, async (req) => {
    const { userId, credentialId } = principalOf(req);
    const tokens = await credentials.listAuthTokens(userId!, deps.clock());
    return { success: true as const, data: { tokens: tokens.map((k) => presentAuthToken(k, credentialId)) } };
  });

  app.delete('/api/auth/tokens/:id', {
    config: { auth: 'user' },
    schema: {
      tags, security: USER_SECURITY, params: IdParams,
      summary: 'Revoke one of your auth tokens (its next request gets 401); another user\'s token is 404',
      response: { 200: Success(Type.Object({ token: AuthToken })), ...errorResponses(401, 403, 404, 500) },
    },
  }, async (req) => {
    const { userId, credentialId } = principalOf(req);
    const revoked = await credentials.revokeAuthToken(userId!, req.params.id);
    if (!revoked) throw Errors.notFound();
    return { success: true as const, data: { token: presentAuthToken(revoked, credentialId) } };
  });
};
