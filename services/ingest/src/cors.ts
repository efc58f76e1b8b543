import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TrackError } from './errors.js';
import type { OriginPolicy } from './origin-policy.js';

/**
 * A day: browsers cache the preflight that long at most (Chrome caps it at 2 hours), so a
 * visitor's widget pays one extra round trip per session rather than one per event.
 */
const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

/**
 * Origin check and CORS headers for the tracking routes. The check runs first among the
 * request hooks, so a refused origin costs neither rate-limit budget nor body parsing.
 * Retry-After is exposed so a widget can honour it after a 429 or 503.
 */
export function registerOriginCheck(app: FastifyInstance, policy: OriginPolicy): void {
  // Callback style: an async hook would allocate a promise on every request for a check that
  // is synchronous and, without an Origin header, a no-op.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const origin = request.headers.origin;
    if (origin === undefined) return done();
    if (!policy.isAllowed(origin)) return done(new TrackError('ANALYTICS_003'));
    if (policy.allowsAll) {
      reply.header('access-control-allow-origin', '*');
    } else {
      reply.header('access-control-allow-origin', origin);
      // Caches must not serve one origin's answer to another.
      reply.header('vary', 'Origin');
    }
    reply.header('access-control-expose-headers', 'Retry-After');
    done();
  });
}

/** Answers a CORS preflight (the origin hook has already accepted or refused the origin). */
export async function answerPreflight(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const requested = request.headers['access-control-request-headers'];
  reply
    .header('access-control-allow-methods', 'GET, POST, OPTIONS')
    // Echoing the requested headers is safe: the tracking routes read no credentials from headers.
    .header('access-control-allow-headers', typeof requested === 'string' && requested.length <= 1024 ? requested : 'Content-Type')
    .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
    .code(204)
    .send();
}
