import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { normalizeIP } from '@fastify/rate-limit';
import { TrackError } from './errors.js';
import { createRateStore, type RateStore, type RateWindow } from './rate-store.js';

/** @fastify/rate-limit's default: an IPv6 client is one /64 (one home or host), not one address. */
const IPV6_SUBNET = 64;

export interface TrackRateLimitOptions {
  /** Events per client key and window. */
  max: number;
  timeWindowMs: number;
  /** Clients held at once (rate-store.ts, RATE_STORE_MAX_KEYS by default); tests lower it. */
  maxKeys?: number;
  /** Monotonic milliseconds; tests pin it. */
  now?: () => number;
}

/**
 * Charges more of the request's budget once its size is known (the batch route: one event was
 * charged when the request arrived, the rest once the body is parsed). Throws the 429.
 */
export type ChargeMore = (request: FastifyRequest, reply: FastifyReply, cost: number) => void;

/**
 * The per-client budget of the tracking routes: events per key (request.ip, IPv6 per /64) and
 * fixed window, in a bounded store that never evicts a live budget (rate-store.ts). A request
 * is charged one event when it arrives, in one synchronous onRequest hook (an async hook cost
 * ~4 µs a request on the hot route); the batch route charges its other events once its body is
 * parsed (the returned ChargeMore), so a batch of 100 events costs 100. A batch costs at most
 * the whole budget, so a budget smaller than a batch still lets it through in a fresh window.
 *
 * Routes opt out with `config: { rateLimit: false }` (preflights, /tracker.js).
 * Register before the routes: the hook is attached to each route as it is added.
 */
export function registerTrackRateLimit(app: FastifyInstance, opts: TrackRateLimitOptions): ChargeMore {
  const { max, timeWindowMs } = opts;
  const store: RateStore = createRateStore({ windowMs: timeWindowMs, maxKeys: opts.maxKeys, now: opts.now });
  const keyOf = (request: FastifyRequest) => normalizeIP(request.ip, IPV6_SUBNET);

  /** Sets the budget headers; the refusal to throw, if refused. */
  function answer(reply: FastifyReply, w: RateWindow): TrackError | undefined {
    const resetSeconds = Math.max(1, Math.ceil(w.resetMs / 1000));
    reply.header('x-ratelimit-limit', max);
    reply.header('x-ratelimit-remaining', Math.max(0, max - w.used));
    reply.header('x-ratelimit-reset', resetSeconds);
    return w.allowed ? undefined : new TrackError('ANALYTICS_006', { retryAfter: resetSeconds });
  }

  function limit(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    done(answer(reply, store.take(keyOf(request), 1, max)));
  }

  app.addHook('onRoute', (route) => {
    const wanted = (route.config as { rateLimit?: unknown } | undefined)?.rateLimit;
    if (wanted === false) return;
    if (wanted !== undefined) throw new Error('tracking routes take only config.rateLimit = false');
    const hooks = route.onRequest;
    route.onRequest = hooks === undefined ? [limit] : Array.isArray(hooks) ? [...hooks, limit] : [hooks, limit];
  });

  return (request, reply, cost) => {
    // The first event was charged on arrival.
    const more = Math.min(cost, max) - 1;
    if (more <= 0) return;
    const refused = answer(reply, store.take(keyOf(request), more, max));
    if (refused) throw refused;
  };
}
