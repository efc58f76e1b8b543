import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Registry } from 'prom-client';
import type { EventBus } from '@chatlytics/bus';
import type { Config, Logger } from '@chatlytics/core';
import { createClientHasher } from '@chatlytics/events';
import { registerTrackBodyParsers, TRACK_BODY_LIMIT } from './body-parsers.js';
import { answerPreflight, registerOriginCheck } from './cors.js';
import { TrackError, errorBody, fromFastifyError, trackNotFound } from './errors.js';
import { createIngestMetrics } from './metrics.js';
import { createOriginPolicy } from './origin-policy.js';
import { createPublisher, PUBLISHER_DEFAULTS, type EventPublisher, type PublisherOptions } from './publisher.js';
import { preflightResponseSchema, trackBodySchema, trackQuerySchema, trackResponseSchema } from './schemas.js';
import { createTrackHandler } from './track-handler.js';
import { defaultPolicySource, type ChatbotPolicySource } from './policy/chatbot-policy.js';
import { registerBatchRoute } from './batch-handler.js';
import { registerTrackRateLimit, type TrackRateLimitOptions } from './rate-limit.js';
import { registerTrackerScriptRoute } from './tracker-route.js';

export interface IngestAppOptions {
  config: Config;
  bus: EventBus;
  log?: Logger;
  registry?: Registry;
  clock?: () => Date;
  /**
   * Key of the client-IP hash. The entry point passes the persistent session secret so hashes
   * stay comparable across restarts; without one a random per-process key is used.
   */
  clientHashSecret?: string;
  /** A publisher owned by the caller (the entry point drains it on shutdown); else one is created and drained on close. */
  publisher?: EventPublisher;
  /** Batching and overload bounds of the publisher created here. */
  batching?: Omit<PublisherOptions, 'bus' | 'metrics'>;
  /** The rate-limit store's bound and clock (tests); the budget itself is config.track. */
  rateLimit?: Pick<TrackRateLimitOptions, 'maxKeys' | 'now'>;
  /**
   * Each chatbot's allowed origins and purchase rules (src/policy/). The entry points pass one
   * backed by PostgreSQL (createPolicySource); without it every chatbot has the defaults.
   */
  policies?: ChatbotPolicySource;
}

export const TRACK_POST_PATHS = ['/api/analytics/track', '/api/events/track', '/api/save'] as const;
export const TRACK_GET_PATHS = ['/api/analytics/track', '/api/events/track'] as const;
/** Paths under these belong to tracking: an unknown one answers in the tracking error shape. */
export const TRACK_PREFIXES = ['/api/analytics', '/api/events'] as const;

/** The HMAC key is derived, not the secret itself: one secret must not serve two purposes. */
const deriveKey = (secret: string) => createHmac('sha256', secret).update('chatlytics:client-ip-hash').digest();

/**
 * The public tracking endpoints (see the tracking endpoint rules and tracking error rules in services/ingest/README.md) as one encapsulated plugin: its body
 * parsers, error handler, rate limit and CORS apply to these routes only.
 *
 * Proxies: the per-IP rate limit and the client hash use `request.ip`, which is the socket
 * peer unless the Fastify server was created with `trustProxy` (config.trustProxy, set by the
 * entry point): only then is X-Forwarded-For believed.
 */
export const ingestApp: FastifyPluginAsync<IngestAppOptions> = async (app: FastifyInstance, opts) => {
  const { config } = opts;
  const log = opts.log ?? app.log;
  const registry = opts.registry ?? new Registry();
  const metrics = createIngestMetrics(registry);
  const clock = opts.clock ?? (() => new Date());
  if (!opts.clientHashSecret) log.info('no client hash secret given: client hashes are per-process');
  const hashClient = createClientHasher(opts.clientHashSecret ? deriveKey(opts.clientHashSecret) : randomBytes(32));
  // The answer must come before the server drops an idle connection: a shorter HTTP idle
  // timeout narrows the wait bound (see publisher.ts, maxWaitMs).
  const idle = config.http.idleTimeoutMs;
  const maxWaitMs = idle > 1000 ? Math.min(PUBLISHER_DEFAULTS.maxWaitMs, idle - 1000) : PUBLISHER_DEFAULTS.maxWaitMs;
  const publisher = opts.publisher ?? createPublisher({ bus: opts.bus, metrics, maxWaitMs, ...opts.batching });
  if (!opts.publisher) app.addHook('onClose', async () => publisher.drain());

  registerTrackBodyParsers(app);
  // Validation is @chatlytics/events' job (exact rules, 400-vs-422 classification); the route
  // schemas only document. A pass-through validator keeps AJV from coercing or pre-empting.
  app.setValidatorCompiler(() => () => true);

  app.setErrorHandler((err: FastifyError | TrackError, request: FastifyRequest, reply: FastifyReply) => {
    const trackErr = err instanceof TrackError ? err : fromFastifyError(err);
    if (trackErr.statusCode >= 500 && trackErr.code !== 'ANALYTICS_004') request.log.error({ err }, 'tracking request failed');
    metrics.rejected.inc({ reason: trackErr.code });
    if (trackErr.retryAfter !== undefined) reply.header('retry-after', String(trackErr.retryAfter));
    return reply.code(trackErr.statusCode).send(errorBody(trackErr));
  });

  registerOriginCheck(app, createOriginPolicy(config.track.allowedOrigins));

  // One store keyed by client IP for every route of this scope: all aliases share one budget.
  const chargeMore = registerTrackRateLimit(app, { max: config.track.rateLimitPerMinute, timeWindowMs: 60_000, ...opts.rateLimit });

  const policies = opts.policies ?? defaultPolicySource;
  const handler = createTrackHandler({ publisher, metrics, clock, hashClient, policies });
  const common = {
    bodyLimit: TRACK_BODY_LIMIT,
    // A HEAD twin of the GET form would record an event on every link-checker probe.
    exposeHeadRoute: false,
  };
  for (const url of TRACK_POST_PATHS) {
    app.post(url, {
      ...common,
      schema: {
        tags: ['tracking'],
        summary: url === '/api/save' ? 'Track an event (legacy alias)' : 'Track an event',
        body: trackBodySchema,
        querystring: trackQuerySchema,
        response: trackResponseSchema,
      },
    }, handler);
    app.options(url, {
      // A browser's preflight is not an event: it must not halve the visitor's budget.
      config: { rateLimit: false },
      schema: { tags: ['tracking'], summary: 'CORS preflight', response: preflightResponseSchema },
    }, answerPreflight);
  }
  for (const url of TRACK_GET_PATHS) {
    app.get(url, {
      ...common,
      schema: {
        tags: ['tracking'],
        summary: 'Track an event (legacy GET form)',
        description: '`e` = event, `u` = token, `d` = data as URL-encoded JSON. Answers exactly like the POST form.',
        querystring: trackQuerySchema,
        response: trackResponseSchema,
      },
    }, handler);
  }
  registerBatchRoute(app, { publisher, metrics, registry, clock, hashClient, policies, chargeMore });
  registerTrackerScriptRoute(app);
  for (const prefix of TRACK_PREFIXES) {
    await app.register(async (scope) => { scope.setNotFoundHandler(trackNotFound); }, { prefix });
  }
};

export default ingestApp;
export { createPublisher, EventPublisher, PUBLISHER_DEFAULTS, PublisherOverloadedError } from './publisher.js';
export { TRACK_ERRORS, TrackError, BUS_RETRY_AFTER_SECONDS, errorBody, trackNotFound } from './errors.js';
export { trackResponseSchema } from './schemas.js';
export { createOriginPolicy } from './origin-policy.js';
export { createIngestMetrics } from './metrics.js';
export { TRACK_BODY_LIMIT } from './body-parsers.js';
export { waitForBus } from './bus-ready.js';
export { createPolicySource } from './policy/source.js';
export { createChatbotPolicyRepository } from './policy/policy-repository.js';
export { type ChatbotPolicySource, type ChatbotPolicyRow, DEFAULT_CHATBOT_POLICY } from './policy/chatbot-policy.js';
export { createCachedPolicySource, POLICY_TTL_MS } from './policy/policy-cache.js';
export { ordersApp, ORDERS_BODY_LIMIT, type OrdersAppOptions } from './orders/app.js';
export { ORDERS_ERRORS, OrdersError } from './orders/errors.js';
export { createOrdersCredentialSource, createOrdersCredentialRepository, createCachedCredentialSource, type OrdersCredentialSource, type OrdersCredentials } from './orders/credentials.js';
export { limitHeapGrowth, INGEST_HEAP_GROWING_PERCENT } from './heap-policy.js';
