import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardDeps } from '../deps.js';
import { DashboardError, Errors } from '../http/errors.js';
import { setFlash } from './flash.js';
import type { LoginThrottle } from './login-throttle.js';
import { localPath, sameOriginPath, siteOrigin, wantsJson } from '../http/origin.js';
import { APP_HOME, Credentials, endSession, LOGIN_PAGE, startSession, throttledLogIn } from './log-in.js';
import type { UserRow } from '../repositories/user-repository.js';
import { html } from '../html/html.js';
import { sendPage } from '../html/layout.js';
import { errorResponses } from '../http/schemas.js';
import { fieldErrors, type SchemaError } from '../http/validation.js';

/** POST /login, POST /logout (see the authentication rules in services/dashboard/docs/api.md). */
export const authRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps; throttle: LoginThrottle; home?: string }> = async (app, { deps, throttle, home = APP_HOME }) => {
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
      response: { 200: JsonOk, 302: Type.Null({ description: 'Form post: redirect' }), ...errorResponses(403, 422, 429, 500) },
    },
    // Checked in the handler: a form post with missing fields goes back to the form like bad credentials do.
    attachValidation: true,
  }, async (req, reply) => {
    const json = wantsJson(req);
    if (req.validationError) {
      if (json) throw Errors.validation(fieldErrors(req.validationError.validation as SchemaError[]));
      return redirectBackWithError(req, reply, fieldErrors(req.validationError.validation as SchemaError[]));
    }
    let user: UserRow | null;
    try {
      user = await throttledLogIn(deps, throttle, req, reply, req.body.email, req.body.password);
    } catch (err) {
      // A browser's form gets a page saying how long to wait; a JSON client the error body.
      const throttled = err instanceof DashboardError && err.statusCode === 429;
      if (json || !throttled) throw err;
      req.log.info({ code: err.code, statusCode: 429 }, 'dashboard request refused');
      return tooManyLogins(reply, Number(reply.getHeader('retry-after')));
    }
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

  /** The form's 429: a page saying how long to wait (the Retry-After header is already set). */
  function tooManyLogins(reply: FastifyReply, seconds: number) {
    const minutes = Math.ceil(seconds / 60);
    return sendPage(reply, {
      title: 'Too many login attempts',
      body: html`<h1>Too many login attempts</h1><p>For your account's safety, logging in from here is paused. Please try again in ${seconds < 60 ? `${seconds} seconds` : `${minutes} minute${minutes === 1 ? '' : 's'}`}, or reset your password.</p><nav><a href="/login">Back to log in</a> · <a href="/forgot-password">Forgot your password?</a></nav>`,
    }, 429);
  }

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
};
