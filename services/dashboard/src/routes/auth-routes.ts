import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardDeps } from '../deps.js';
import { Errors } from '../errors.js';
import { setFlash } from '../auth/flash.js';
import { localPath, sameOriginPath, siteOrigin, wantsJson } from '../auth/origin.js';
import { verifyAgainstDummy, verifyPassword } from '../auth/passwords.js';
import { SESSION_TTL_MS, clearSessionCookie, readSessionCookie, setSessionCookie } from '../auth/session-cookie.js';
import type { UserRow } from '../repositories/user-repository.js';
import { errorResponses } from '../schemas/common.js';
import { fieldErrors, type SchemaError } from '../validation.js';

/** The profile page: where password-reset outcomes of a logged-in user land. */
export const HOME_AFTER_LOGIN = '/settings/profile';
/** Where a form login lands when it did not come from a page that wants the user back: the data. */
export const APP_HOME = '/app';
export const LOGIN_PAGE = '/login';

const Credentials = {
  email: Type.String({ minLength: 1, maxLength: 255, description: 'E-mail address (case-insensitive)' }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
};

/** Check an e-mail/password pair; the same time is spent whether or not the e-mail exists. */
export async function checkCredentials(deps: DashboardDeps, email: string, password: string): Promise<UserRow | null> {
  const user = await deps.repos.users.findByEmail(email);
  if (!user) return verifyAgainstDummy(password, deps.passwordCost).then(() => null);
  return (await verifyPassword(password, user.passwordHash)) ? user : null;
}

/** Start a web session for `userId`, replacing the caller's previous one (no session fixation). */
export async function startSession(deps: DashboardDeps, req: FastifyRequest, reply: FastifyReply, userId: string): Promise<void> {
  const previous = readSessionCookie(req);
  if (previous) await deps.repos.sessions.delete(previous);
  const { sessionId, expiresAt } = await deps.repos.sessions.create(userId, SESSION_TTL_MS, deps.clock());
  setSessionCookie(reply, sessionId, expiresAt, deps.cookies);
}

export async function endSession(deps: DashboardDeps, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const current = readSessionCookie(req);
  if (current) await deps.repos.sessions.delete(current);
  clearSessionCookie(reply, deps.cookies);
}

/** POST /login, POST /logout, POST /api/auth/tokens (see the authentication rules in services/dashboard/README.md). */
export const authRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps; home?: string }> = async (app, { deps, home = APP_HOME }) => {
  const JsonOk = Type.Object({ success: Type.Literal(true) });

  app.post('/login', {
    config: { auth: 'none', page: true },
    schema: {
      tags: ['auth'],
      summary: 'Start a web session (form: 302 redirect; JSON: 200)',
      body: Type.Object({
        ...Credentials,
        redirect: Type.Optional(Type.String({ maxLength: 2048, description: 'Local path to go to after a form login' })),
      }),
      response: { 200: JsonOk, 302: Type.Null({ description: 'Form post: redirect' }), ...errorResponses(403, 422, 500) },
    },
    // Checked in the handler: a form post with missing fields goes back to the form like bad credentials do.
    attachValidation: true,
  }, async (req, reply) => {
    const json = wantsJson(req);
    if (req.validationError) {
      if (json) throw Errors.validation(fieldErrors(req.validationError.validation as SchemaError[]));
      return redirectBackWithError(req, reply, fieldErrors(req.validationError.validation as SchemaError[]));
    }
    const user = await checkCredentials(deps, req.body.email, req.body.password);
    if (!user) {
      req.log.info({ event: 'login_failed' }, 'login refused');
      if (json) throw Errors.badCredentials();
      return redirectBackWithError(req, reply);
    }
    await startSession(deps, req, reply, user.id);
    if (json) return { success: true as const };
    const referer = sameOriginPath(req.headers.referer, siteOrigin(req, deps.origins));
    const target = localPath(req.body.redirect) ?? (referer && !referer.startsWith(LOGIN_PAGE) ? referer : home);
    return reply.redirect(target, 302);
  });

  function redirectBackWithError(req: FastifyRequest, reply: FastifyReply, errors = Errors.badCredentials().errors) {
    const email = (req.body as { email?: unknown } | undefined)?.email;
    setFlash(reply, { errors, old: typeof email === 'string' ? { email } : undefined }, deps.cookies);
    return reply.redirect(sameOriginPath(req.headers.referer, siteOrigin(req, deps.origins)) ?? LOGIN_PAGE, 302);
  }

  app.post('/logout', {
    config: { auth: 'none', page: true },
    schema: {
      tags: ['auth'],
      summary: 'End the web session (form: 302 to /login; JSON: 200)',
      response: { 200: JsonOk, 302: Type.Null({ description: 'Form post: redirect' }), ...errorResponses(403, 500) },
    },
  }, async (req, reply) => {
    await endSession(deps, req, reply);
    if (wantsJson(req)) return { success: true as const };
    return reply.redirect(LOGIN_PAGE, 302);
  });

  app.post('/api/auth/tokens', {
    config: { auth: 'none' },
    schema: {
      tags: ['auth'],
      summary: 'Issue a personal auth token (ct_…) for the Authorization or X-API-Key header',
      body: Type.Object({ ...Credentials, name: Type.Optional(Type.String({ maxLength: 255, description: 'Label of the token' })) }),
      response: {
        201: Type.Object({ success: Type.Literal(true), data: Type.Object({ token: Type.String({ description: 'Shown once' }) }) }),
        ...errorResponses(403, 422, 500),
      },
    },
  }, async (req, reply) => {
    const user = await checkCredentials(deps, req.body.email, req.body.password);
    if (!user) throw Errors.badCredentials();
    const { token } = await deps.repos.credentials.createAuthToken({ userId: user.id, name: req.body.name });
    reply.code(201);
    return { success: true as const, data: { token } };
  });
};
