import type { FastifyInstance, FastifyRequest } from 'fastify';
import { normalizeEmail } from '../repositories/user-repository.js';

/** A window of one minute: the limits of the password reset rules in services/dashboard/README.md are per minute. */
const WINDOW_MS = 60_000;

export type RouteLimiter = (req: FastifyRequest, email: string | null) => Promise<{ retryAfterSeconds: number } | null>;

/**
 * Two @fastify/rate-limit counters for one route: per client IP (Fastify's `req.ip`, which
 * honours TRUST_PROXY) and per lower-cased e-mail, so neither many addresses from one client
 * nor one address from many clients gets past `max` a minute. Counters live in this process
 * (the plugin's LRU store); several dashboard processes each count on their own.
 * Requires @fastify/rate-limit to be registered on `app`.
 */
export function createRouteLimiter(app: FastifyInstance, max: number): RouteLimiter {
  // The limiter's key generator only sees the request; the e-mail (from a body or a session) travels beside it.
  const emailOf = new WeakMap<FastifyRequest, string>();
  const byIp = app.createRateLimit({ max, timeWindow: WINDOW_MS });
  const byEmail = app.createRateLimit({
    max, timeWindow: WINDOW_MS,
    keyGenerator: (req) => emailOf.get(req) ?? '',
    // No e-mail (a body without one): only the IP counter applies.
    allowList: (_req, key) => key === '',
  });
  return async (req, email) => {
    if (email) emailOf.set(req, `email:${normalizeEmail(email)}`);
    const results = [await byIp(req), await byEmail(req)];
    let retryAfterSeconds = 0;
    for (const r of results) if (!r.isAllowed && r.isExceeded) retryAfterSeconds = Math.max(retryAfterSeconds, r.ttlInSeconds, 1);
    return retryAfterSeconds > 0 ? { retryAfterSeconds } : null;
  };
}
