import type {} from '@fastify/swagger';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Histogram, Counter, type Registry } from 'prom-client';

export interface ReadinessCheck {
  name: string;
  /**
   * Resolve with extra detail (e.g. consumer lag) when healthy; throw when not. Detail with
   * `status: 'degraded'` marks the store degraded: /ready still answers 200, with the overall
   * status `degraded` (working, but an operator should look, e.g. a lag past its alert).
   */
  check(): Promise<Record<string, unknown> | void>;
}

export interface OpsOptions {
  registry: Registry;
  checks: ReadinessCheck[];
  /** How long one readiness probe may take before the store counts as down. */
  checkTimeoutMs?: number;
  /** METRICS_TOKEN: see metricsAccess. */
  metricsToken?: string;
}

const digest = (text: string) => createHash('sha256').update(text).digest();
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * Who may read /metrics (route names, traffic, error rates, heap: not for the public). With a
 * token: anyone presenting `Authorization: Bearer <token>` (compared in constant time, as
 * digests, so neither its bytes nor its length leak through timing). Without one: only a
 * connection from this host that no proxy forwarded (a reverse proxy on the same host connects
 * from loopback too, and always adds X-Forwarded-For or Forwarded).
 */
export function metricsAccess(token: string | undefined): (req: FastifyRequest) => boolean {
  if (token !== undefined) {
    const expected = digest(`Bearer ${token}`);
    return (req) => timingSafeEqual(digest(req.headers.authorization ?? ''), expected);
  }
  return (req) => LOOPBACK.test(req.socket.remoteAddress ?? '')
    && req.headers['x-forwarded-for'] === undefined && req.headers.forwarded === undefined;
}

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`timed out after ${ms} ms`)), ms).unref())]);

/** /health, /ready and /metrics (see the operations endpoints in packages/core/README.md), plus request count and latency metrics. */
const ops: FastifyPluginAsync<OpsOptions> = async (app: FastifyInstance, opts) => {
  const { registry } = opts;
  const timeout = opts.checkTimeoutMs ?? 2000;
  const duration = new Histogram({
    name: 'chatlytics_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const requests = new Counter({
    name: 'chatlytics_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  // Callback style with the label children cached per route and status: on the tracking
  // route this hook runs for every beacon, and an async hook plus two label-set lookups per
  // request cost more than the counting itself.
  const series = new Map<string, { count: Counter.Internal; latency: Histogram.Internal<string> }>();
  app.addHook('onResponse', (req, reply, done) => {
    // routeOptions.url is the route pattern: bounded label cardinality, unlike the raw URL.
    const route = req.routeOptions.url ?? 'unmatched';
    const key = `${req.method} ${reply.statusCode} ${route}`;
    let s = series.get(key);
    if (!s) {
      const labels = { method: req.method, route, status: String(reply.statusCode) };
      s = { count: requests.labels(labels), latency: duration.labels(labels) };
      series.set(key, s);
    }
    s.count.inc();
    s.latency.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/health', {
    schema: {
      tags: ['operations'],
      response: { 200: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] } },
    },
  }, async () => ({ status: 'ok' }));

  app.get('/ready', {
    schema: {
      tags: ['operations'],
      response: {
        200: { $ref: 'ReadyResponse#' },
        503: { $ref: 'ReadyResponse#' },
      },
    },
  }, async (_req, reply) => {
    const stores: Record<string, Record<string, unknown>> = {};
    let ok = true;
    let degraded = false;
    await Promise.all(opts.checks.map(async (c) => {
      try {
        const detail = await withTimeout(c.check(), timeout);
        stores[c.name] = { status: 'ok', ...(detail ?? {}) };
        if (stores[c.name].status === 'degraded') degraded = true;
      } catch (err) {
        ok = false;
        // Only the message: a readiness body is public and must not leak stack traces.
        stores[c.name] = { status: 'down', error: (err as Error).message };
      }
    }));
    reply.code(ok ? 200 : 503);
    return { status: !ok ? 'unavailable' : degraded ? 'degraded' : 'ok', stores };
  });

  const mayReadMetrics = metricsAccess(opts.metricsToken);
  app.get('/metrics', { schema: { tags: ['operations'], hide: true } }, async (req, reply) => {
    if (!mayReadMetrics(req)) {
      // 404 without a token configured: from outside, the route does not exist.
      if (opts.metricsToken === undefined) return reply.code(404).type('text/plain; charset=utf-8').send('Not found.\n');
      return reply.code(401).header('www-authenticate', 'Bearer').type('text/plain; charset=utf-8').send('Unauthorized.\n');
    }
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
};

export const readySchema = {
  $id: 'ReadyResponse',
  type: 'object',
  properties: {
    status: { type: 'string' },
    stores: { type: 'object', additionalProperties: { type: 'object', additionalProperties: true } },
  },
  required: ['status', 'stores'],
};

export const opsPlugin = fp(async (app: FastifyInstance, opts: OpsOptions) => {
  if (!app.getSchema('ReadyResponse')) app.addSchema(readySchema);
  await app.register(ops, opts);
}, { name: 'chatlytics-ops' });
