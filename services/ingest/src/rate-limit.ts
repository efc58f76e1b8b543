import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { normalizeIP } from '@fastify/rate-limit';
// @ts-expect-error -- the store has no type declarations of its own; its shape is declared below.
import LocalStoreJs from '@fastify/rate-limit/store/LocalStore.js';
import { TrackError } from './errors.js';

interface Counter { current: number; ttl: number }
interface Store { incr(key: string, cb: (err: Error | null, res: Counter) => void, timeWindow: number, max: number): void }
const LocalStore = LocalStoreJs as new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => Store;

/** @fastify/rate-limit's default: an IPv6 client is one /64 (one home or host), not one address. */
const IPV6_SUBNET = 64;

export interface TrackRateLimitOptions {
  /** Requests per client key and window. */
  max: number;
  timeWindowMs: number;
}

/**
 * The per-IP budget of the tracking routes: what `@fastify/rate-limit` (global, LocalStore)
 * did, with the same store, the same key (request.ip, IPv6 per /64), the same fixed window,
 * headers and 429, but as one synchronous onRequest hook. Why not the plugin itself: its hook
 * is async (two async functions, a promise around the store's callback, a result object and
 * Fastify's promise-hook path) and reads `request.routeOptions`, which builds an object per
 * call; on the hot route that cost about 4 µs of CPU per request, the largest single item
 * beyond the bare route (fastify.inject A/B with and without the plugin).
 *
 * Routes opt out with `config: { rateLimit: false }` (preflights, /tracker.js, as before).
 * Register before the routes: the hook is attached to each route as it is added.
 */
export function registerTrackRateLimit(app: FastifyInstance, opts: TrackRateLimitOptions): void {
  // The plugin's LocalStore (its default cache of 5,000 keys, least recently used evicted first).
  const store = new LocalStore(false, false);
  const { max, timeWindowMs } = opts;
  let counter: Counter | undefined;
  // LocalStore never fails; an error would leave `counter` unset, which limit() refuses below.
  const take = (err: Error | null, res: Counter) => { if (!err) counter = res; };

  function limit(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    // LocalStore.incr answers synchronously; the callback only hands the counter over.
    counter = undefined;
    store.incr(normalizeIP(request.ip, IPV6_SUBNET), take, timeWindowMs, max);
    const c = counter as Counter | undefined;
    // Never silently unlimited: a store that stopped answering synchronously (a dependency
    // update) fails every tracking request loudly (500, logged) and the tests with it.
    if (c === undefined) return done(new Error('rate-limit store did not answer synchronously'));
    const resetSeconds = Math.ceil(c.ttl / 1000);
    reply.header('x-ratelimit-limit', max);
    reply.header('x-ratelimit-remaining', Math.max(0, max - c.current));
    reply.header('x-ratelimit-reset', resetSeconds);
    done(c.current <= max ? undefined : new TrackError('ANALYTICS_006', { retryAfter: resetSeconds }));
  }

  app.addHook('onRoute', (route) => {
    const wanted = (route.config as { rateLimit?: unknown } | undefined)?.rateLimit;
    if (wanted === false) return;
    if (wanted !== undefined) throw new Error('tracking routes take only config.rateLimit = false');
    const hooks = route.onRequest;
    route.onRequest = hooks === undefined ? [limit] : Array.isArray(hooks) ? [...hooks, limit] : [hooks, limit];
  });
}
