import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { loadConfig, type Config } from './config.js';
import { defaultMaxConnections, guardConnections, openFileLimit } from './connection-guard.js';
import { lazyChildLogger, loggerOptions, type Logger } from './logger.js';
import { cutLateRequests } from './request-deadline.js';

export interface HttpServerOptions {
  title: string;
  /** Fastify's logger is the service's pino logger (same redaction rules). */
  config: Config;
  name?: string;
  /** OpenAPI security schemes, named as the routes' `security` requirements name them. */
  securitySchemes?: Record<string, Record<string, unknown>>;
  /**
   * The 404 of a path no plugin claims, in the error shape of the surface this server mainly
   * serves (tracking for ingest, pages for the dashboard). Default: `{success: false, message}`.
   */
  notFound?: (req: FastifyRequest, reply: FastifyReply) => unknown;
  /** How long one plugin may take to start (Fastify's default 10 s); tests on a loaded machine raise it. */
  pluginTimeout?: number;
  /** Longest request head (request line + headers) accepted; Node's default (16 KiB) otherwise. */
  maxHeaderSize?: number;
}

/**
 * listen(2)'s queue of connections the kernel completed and the server has not accepted yet
 * (Node's default 511; the kernel caps it at net.core.somaxconn). A burst past the queue is
 * dropped and retried by the clients' kernels with back-off, so those connections reach the
 * server, and its deadlines, seconds late.
 */
export const LISTEN_BACKLOG = 65_535;

const defaultNotFound = (_req: FastifyRequest, reply: FastifyReply) => reply.code(404).send({ success: false, message: 'Not found.' });

/**
 * The Fastify instance every entry point starts from: logging, proxy trust, timeouts and the
 * connection cap, OpenAPI docs. Swagger is registered before any route so the docs see every
 * route's schema.
 */
export async function createHttpServer(opts: HttpServerOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const limits = config.http;
  const app = Fastify({
    // A slow or silent client holds a descriptor: cut it off (see Config.http). Node checks the
    // header and request deadlines every connectionsCheckingInterval (30 s by default).
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Opening embedded engines and migrating inside plugins can take longer than Fastify's
    // 10 s default on a busy machine; a slow start is better than a failed one.
    pluginTimeout: 60_000,
    http: {
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs), connectionsCheckingInterval: 1000,
      ...(opts.maxHeaderSize !== undefined ? { maxHeaderSize: opts.maxHeaderSize } : {}),
    },
    logger: loggerOptions(config.logLevel, opts.name),
    // Only the listed proxies' X-Forwarded-For is believed; otherwise request.ip is the socket peer,
    // so a client cannot dodge the per-IP rate limit by inventing headers.
    trustProxy: config.trustProxy && config.trustProxy.length > 0 ? config.trustProxy : false,
    // Tracking beacons and dashboards both send small bodies; the ingest plugin narrows it further.
    bodyLimit: 1024 * 1024,
    ...(opts.pluginTimeout !== undefined ? { pluginTimeout: opts.pluginTimeout } : {}),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: true } },
    // One line per tracking beacon would cost more than the beacon; request logs only when debugging.
    logController: new LogController({ disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace' }),
    childLoggerFactory: (logger, bindings, childOpts) => lazyChildLogger(logger as Logger, bindings, childOpts),
  });
  const fdLimit = openFileLimit();
  const maxConnections = limits.maxConnections ?? defaultMaxConnections(fdLimit);
  const guard = guardConnections(app.server, maxConnections);
  // Node's own requestTimeout check runs late under a flood; this one counts from the accept.
  const deadlines = cutLateRequests(app.server, limits.requestTimeoutMs);
  app.addHook('preClose', (done) => { guard.shutdown(); deadlines.stop(); done(); });
  app.log.info({ maxConnections, fdLimit }, 'http connection cap');
  await app.register(swagger, {
    openapi: {
      info: { title: opts.title, version: '0.1.0', description: 'Chatlytics: event tracking and analytics for AI shop-assistant chatbots' },
      components: { securitySchemes: (opts.securitySchemes ?? {}) as never },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.setNotFoundHandler(opts.notFound ?? defaultNotFound);
  return app;
}

/**
 * Runs `close` once on SIGTERM/SIGINT. A second signal, or a close that hangs past the grace
 * period, exits hard: an orchestrator's kill timeout is better met with a non-zero exit than a hang.
 */
export function closeOnSignals(close: () => Promise<void>, log: { info: (o: object, m: string) => void; error: (o: object, m: string) => void }, graceMs = 15000): void {
  let closing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (closing) {
      log.error({ signal }, 'second signal during shutdown: exiting now');
      process.exit(1);
    }
    closing = true;
    log.info({ signal }, 'shutting down: draining and closing engines');
    const timer = setTimeout(() => {
      log.error({ graceMs }, 'shutdown took too long: exiting');
      process.exit(1);
    }, graceMs);
    timer.unref();
    close().then(
      () => { clearTimeout(timer); process.exit(0); },
      (err) => { log.error({ err }, 'error during shutdown'); process.exit(1); },
    );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}

/** Entry points parse the environment first; a bad value is one line on stderr and exit 1. */
export function exitOnStartupError(err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** The environment parsed once at start-up; a bad variable exits 1 with its one-line message. */
export function loadConfigOrExit(env: Record<string, string | undefined>): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    exitOnStartupError(err);
  }
}
