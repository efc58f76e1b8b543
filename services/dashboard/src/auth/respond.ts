import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardDeps } from '../deps.js';
import type { DashboardError } from '../http/errors.js';
import { setFlash } from './flash.js';
import { sameOriginPath, siteOrigin, wantsJson } from '../http/origin.js';
import { readSessionCookie } from './session-cookie.js';
import type { SessionPrincipal } from '../repositories/session-repository.js';
import { html } from '../html/html.js';
import { sendPage } from '../html/layout.js';
import { Errors, MESSAGES } from '../http/errors.js';

/**
 * The two answers of a redirect-style form post (see the response and error rules in services/dashboard/docs/api.md): a browser gets a 302 with the
 * message in the flash cookie; a client asking for JSON gets the message (or error) itself.
 */
export function createResponder(deps: DashboardDeps) {
  return {
    /** The Referer if it is a page of this site, else `fallback` (never another origin: no open redirect). */
    back(req: FastifyRequest, fallback: string): string {
      return sameOriginPath(req.headers.referer, siteOrigin(req, deps.origins)) ?? fallback;
    },

    succeed(req: FastifyRequest, reply: FastifyReply, message: string, redirectTo: string) {
      if (wantsJson(req)) return reply.code(200).send({ success: true, message });
      setFlash(reply, { status: message }, deps.cookies);
      return reply.redirect(redirectTo, 302);
    },

    /** Throws for JSON (the error handler answers it); redirects with the errors for a form. */
    fail(req: FastifyRequest, reply: FastifyReply, err: DashboardError, redirectTo: string, old?: Record<string, string>) {
      if (wantsJson(req)) throw err;
      setFlash(reply, { errors: err.errors ?? { _: [err.message] }, old }, deps.cookies);
      return reply.redirect(redirectTo, 302);
    },

    /** 429 with Retry-After: JSON for API clients, a small page for a browser's form post. */
    tooManyAttempts(req: FastifyRequest, reply: FastifyReply, retryAfterSeconds: number) {
      reply.header('retry-after', String(retryAfterSeconds));
      if (wantsJson(req)) throw Errors.resetRateLimited();
      req.log.info({ code: 'DASHBOARD_014', statusCode: 429 }, 'dashboard request refused');
      return sendPage(reply, {
        title: 'Too many attempts',
        body: html`<h1>${MESSAGES.tooManyAttempts}</h1><p>Please wait ${retryAfterSeconds} seconds and try again.</p><nav><a href="/login">Back to log in</a></nav>`,
      }, 429);
    },

    /** The web session of the request, if any; API keys and tokens never count as logged in here. */
    async session(req: FastifyRequest): Promise<SessionPrincipal | null> {
      const id = readSessionCookie(req);
      return id ? deps.repos.sessions.resolve(id, deps.clock()) : null;
    },
  };
}
export type Responder = ReturnType<typeof createResponder>;
