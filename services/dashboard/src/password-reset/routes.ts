import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardDeps } from '../deps.js';
import { Errors, MESSAGES, type FieldErrors } from '../http/errors.js';
import { HOME_AFTER_LOGIN, LOGIN_PAGE } from '../auth/log-in.js';
import { clearSessionCookie } from '../auth/session-cookie.js';
import { errorResponses } from '../http/schemas.js';
import { fieldErrors, type SchemaError } from '../http/validation.js';
import { MAX_PASSWORD_LENGTH, newPasswordErrors } from '../auth/password-rules.js';
import type { RouteLimiter } from './rate-limit.js';
import { siteOrigin } from '../http/origin.js';
import { createResponder } from '../auth/respond.js';
import type { PasswordResetService } from './service.js';

export const FORGOT_PASSWORD_PAGE = '/forgot-password';

export interface PasswordResetRouteOptions {
  deps: DashboardDeps;
  service: PasswordResetService;
  limiters: { forgot: RouteLimiter; send: RouteLimiter; reset: RouteLimiter };
}

const Email = Type.String({ format: 'email', maxLength: 255, description: 'E-mail address (case-insensitive)' });
const MessageResponse = Type.Object({ success: Type.Literal(true), message: Type.String() });
const Redirect = Type.Null({ description: 'Form post: 302 back (Referer) with the message in the flash cookie' });

/** A body field as text, whether or not the body passed validation. */
const text = (body: unknown, name: string): string | null => {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : null;
};

const schemaErrors = (req: FastifyRequest): FieldErrors =>
  req.validationError ? fieldErrors(req.validationError.validation as SchemaError[]) : {};

/** POST /forgot-password, POST /app/send-password-reset, POST /reset-password (see the password reset rules in services/dashboard/README.md). */
export const passwordResetRoutes: FastifyPluginAsyncTypebox<PasswordResetRouteOptions> = async (app, { deps, service, limiters }) => {
  const respond = createResponder(deps);

  async function limited(req: FastifyRequest, reply: FastifyReply, limiter: RouteLimiter, email: string | null) {
    const hit = await limiter(req, email);
    if (!hit) return false;
    await respond.tooManyAttempts(req, reply, hit.retryAfterSeconds);
    return true;
  }

  app.post('/forgot-password', {
    config: { auth: 'none', page: true },
    schema: {
      tags: ['password reset'],
      summary: 'Request a reset link (guests only; the same answer whether or not the e-mail has an account)',
      description: 'A request with a live session is refused: JSON 403 (DASHBOARD_013), a form post 302 to /settings/profile. ' +
        '5 requests a minute per client IP and per e-mail (429).',
      body: Type.Object({ email: Email }),
      response: { 200: MessageResponse, 302: Redirect, ...errorResponses(403, 422, 429, 500) },
    },
    // Checked in the handler: a form post with a bad field goes back to the form with the errors.
    attachValidation: true,
  }, async (req, reply) => {
    const email = text(req.body, 'email');
    if (await limited(req, reply, limiters.forgot, email)) return reply;
    if (await respond.session(req)) return respond.fail(req, reply, Errors.resetGuestOnly(), HOME_AFTER_LOGIN);
    const back = respond.back(req, FORGOT_PASSWORD_PAGE);
    if (req.validationError) return respond.fail(req, reply, Errors.validation(schemaErrors(req)), back, email ? { email } : undefined);
    await service.requestLink(req.body.email);
    return respond.succeed(req, reply, MESSAGES.linkRequested, back);
  });

  app.post('/app/send-password-reset', {
    config: { auth: 'none', page: true },
    schema: {
      tags: ['password reset'],
      summary: 'E-mail a reset link to the logged-in user (web session; no body)',
      description: 'Without a session: JSON 401, a form post 302 to /login. 5 requests a minute per client IP and per e-mail (429).',
      response: { 200: MessageResponse, 302: Redirect, ...errorResponses(401, 403, 429, 500) },
    },
  }, async (req, reply) => {
    const session = await respond.session(req);
    if (!session) return respond.fail(req, reply, Errors.unauthenticated(), LOGIN_PAGE);
    if (await limited(req, reply, limiters.send, session.email)) return reply;
    await service.requestLink(session.email);
    return respond.succeed(req, reply, MESSAGES.linkSent, respond.back(req, HOME_AFTER_LOGIN));
  });

  app.post('/reset-password', {
    // No `auth` hook: see the origin check below.
    config: { page: true },
    schema: {
      tags: ['password reset'],
      summary: 'Set a new password with the token from the e-mail',
      description: `The password needs at least 8 characters (at most ${MAX_PASSWORD_LENGTH}) and must equal password_confirmation. ` +
        'Ends every session and auth token of the user. A logged-in caller is sent to /settings/profile, a guest to /login. ' +
        '10 requests a minute per client IP and per e-mail (429).',
      body: Type.Object({
        token: Type.String({ minLength: 1, maxLength: 512, description: 'Token from the e-mail link' }),
        email: Email,
        // Its length rules are newPasswordErrors', which counts characters as people do (code points).
        password: Type.String({ minLength: 1 }),
        password_confirmation: Type.String(),
      }),
      response: { 200: MessageResponse, 302: Redirect, ...errorResponses(403, 422, 429, 500) },
    },
    attachValidation: true,
  }, async (req, reply) => {
    // The reset page is served with Referrer-Policy: no-referrer, so browsers post its form with
    // `Origin: null`. That value is accepted here only: the token, not a cookie, authorizes
    // this request, so a cross-site post could only reset a password its sender already controls.
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== 'null' && origin !== siteOrigin(req, deps.origins)) throw Errors.crossOrigin();

    const email = text(req.body, 'email');
    const token = text(req.body, 'token');
    if (await limited(req, reply, limiters.reset, email)) return reply;
    const old = email ? { email } : undefined;
    const back = respond.back(req, token && email ? formPath(token, email) : FORGOT_PASSWORD_PAGE);

    const errors = schemaErrors(req);
    const password = text(req.body, 'password');
    if (password) {
      for (const [field, messages] of Object.entries(newPasswordErrors(password, text(req.body, 'password_confirmation') ?? ''))) {
        errors[field] = [...new Set([...(errors[field] ?? []), ...messages])];
      }
    }
    if (Object.keys(errors).length) return respond.fail(req, reply, Errors.validation(errors), back, old);

    const session = await respond.session(req);
    const result = await service.resetPassword({ token: req.body.token, email: req.body.email, password: req.body.password });
    if (!result) return respond.fail(req, reply, Errors.resetInvalidToken(), back, old);
    // The caller's own session row is gone with all the others: drop its cookie too (no auto-login).
    if (session?.userId === result.userId) clearSessionCookie(reply, deps.cookies);
    return respond.succeed(req, reply, MESSAGES.passwordReset, session ? HOME_AFTER_LOGIN : LOGIN_PAGE);
  });
};

/** The form a failed reset goes back to (the form's page sends no Referer). */
export const formPath = (token: string, email: string) =>
  `/reset-password/${encodeURIComponent(token)}?email=${encodeURIComponent(email)}`;
