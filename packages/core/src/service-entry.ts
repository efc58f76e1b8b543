import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { createHttpServer, closeOnSignals, LISTEN_BACKLOG, exitOnStartupError, loadConfigOrExit, type HttpServerOptions } from './http-server.js';
import { createLogger, type Logger } from './logger.js';
import { createMetricsRegistry, type Registry } from './metrics.js';
import { opsPlugin, type ReadinessCheck } from './ops-plugin.js';

export interface ServiceContext {
  config: Config;
  log: Logger;
  registry: Registry;
}

/** What a service opened, and how it plugs into its HTTP server. */
export interface ServiceParts {
  /** /health, /ready and /metrics over these checks; omit when the service's plugin registers them itself. */
  checks?: ReadinessCheck[];
  server?: Pick<HttpServerOptions, 'notFound' | 'securitySchemes' | 'maxHeaderSize'>;
  register(app: FastifyInstance): Promise<void>;
  /** Called after the server stopped taking requests: finish in-flight work, then close the stores. */
  close(): Promise<void>;
}

export interface ServiceSpec {
  /** Logger name, e.g. `ingest`. */
  name: string;
  /** OpenAPI title. */
  title: string;
  port(config: Config): number;
  /** Opens the stores; cleans up after itself when it throws. */
  open(ctx: ServiceContext): Promise<ServiceParts>;
}

/**
 * A production entry point: parse the environment once, open the service's stores, build the
 * HTTP server, close in order on SIGTERM/SIGINT, listen. A failed start is logged and exits 1.
 */
export async function runService(env: Record<string, string | undefined>, spec: ServiceSpec): Promise<void> {
  const config = loadConfigOrExit(env);
  const log = createLogger(config.logLevel, spec.name);
  let parts: ServiceParts | undefined;
  try {
    const registry = createMetricsRegistry();
    parts = await spec.open({ config, log, registry });
    const app = await createHttpServer({ title: spec.title, config, name: spec.name, ...parts.server });
    if (parts.checks) await app.register(opsPlugin, { registry, checks: parts.checks, metricsToken: config.metricsToken });
    await parts.register(app);
    const opened = parts;
    closeOnSignals(async () => {
      await app.close();
      await opened.close();
    }, log);
    await app.listen({ port: spec.port(config), host: config.host, backlog: LISTEN_BACKLOG });
  } catch (err) {
    log.fatal({ err }, `${spec.name} start-up failed`);
    await parts?.close().catch(() => undefined);
    exitOnStartupError(err);
  }
}
