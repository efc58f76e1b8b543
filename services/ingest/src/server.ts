/**
 * Production entry point of the ingest service (`npm run start:ingest`): the only place that
 * reads the environment. It listens and shuts down; everything else is the ingestApp plugin.
 */
import { createEventBus } from '@chatlytics/bus';
import { createLogger, createMetricsRegistry, opsPlugin, resolveSessionSecret } from '@chatlytics/core';
import { closeOnSignals, createHttpServer, exitOnStartupError, loadConfigOrExit } from '@chatlytics/core/http';
import { ingestApp, trackNotFound } from './app.js';
import { createIngestMetrics } from './metrics.js';
import { createPublisher } from './publisher.js';

async function main(): Promise<void> {
    const config = loadConfigOrExit(process.env);
  const log = createLogger(config.logLevel, 'ingest');
  const registry = createMetricsRegistry();
  const bus = await createEventBus(config, log, registry);
  // Owned here, not by the plugin, so shutdown can drain it between closing HTTP and the bus.
  const publisher = createPublisher({ bus, metrics: createIngestMetrics(registry) });

  // trustProxy comes from config.trustProxy inside createHttpServer: request.ip, and so the
  // per-IP rate limit, honours X-Forwarded-For only from the listed proxies.
  const app = await createHttpServer({ title: 'Chatlytics ingest', config, name: 'ingest', notFound: trackNotFound });
  await app.register(opsPlugin, {
    registry,
    checks: [{ name: 'bus', check: async () => { await bus.ping(); return { kind: bus.kind }; } }],
  });
  await app.register(ingestApp, {
    config, bus, log, registry, publisher,
    // The persistent secret keeps client hashes comparable across restarts and instances.
    clientHashSecret: resolveSessionSecret(config.sessionSecret, config.dataDir),
  });

  // Order matters: stop taking requests, answer the ones waiting on a batch, then close the bus.
  closeOnSignals(async () => {
    await app.close();
    await publisher.drain();
    await bus.close();
  }, log);

  await app.listen({ port: config.ingestPort, host: config.host });
}

main().catch((err) => exitOnStartupError(err));
