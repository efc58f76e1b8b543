/**
 * Production entry point of the ingest service (`npm run start:ingest`): the only place that
 * reads the environment. It opens the bus and, with DATABASE_URL, PostgreSQL for the chatbots'
 * settings; everything else is the ingestApp plugin.
 */
import { createEventBus } from '@chatlytics/bus';
import { createPostgres } from '@chatlytics/postgres';
import { resolveSessionSecret } from '@chatlytics/core';
import { runService } from '@chatlytics/core/http';
import { createOrdersCredentialSource, createPolicySource, ingestApp, ordersApp, trackNotFound } from './app.js';
import { waitForBus } from './bus-ready.js';
import { createIngestMetrics } from './metrics.js';
import { createPublisher } from './publisher.js';
import { limitHeapGrowth } from './heap-policy.js';

limitHeapGrowth();

await runService(process.env, {
  name: 'ingest',
  title: 'Chatlytics ingest',
  port: (config) => config.ingestPort,
  async open({ config, log, registry }) {
    const bus = await createEventBus(config, log, registry);
    // Before listening: a tracking request never waits on topic creation or a producer id.
    await waitForBus(bus, log);
    // Owned here, not by the plugin, so shutdown can drain it between closing HTTP and the bus.
    const publisher = createPublisher({ bus, metrics: createIngestMetrics(registry) });
    // The chatbots' settings (allowed origins, purchase rules) are the dashboard's rows. Only a
    // PostgreSQL server is shared between processes: the embedded store belongs to the process
    // that opened it, so without DATABASE_URL every chatbot gets the defaults. Not a readiness
    // check: tracking keeps answering while the database is away (src/policy/policy-cache.ts).
    const postgres = config.databaseUrl ? await createPostgres({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log, poolSize: 4 }) : undefined;
    if (!postgres) log.warn('no DATABASE_URL: per-chatbot origins and purchase rules are not enforced (every chatbot has the defaults)');
    const policies = postgres ? createPolicySource({ db: postgres.db, log, registry }) : undefined;
    return {
      // request.ip, and so the per-IP rate limit, honours X-Forwarded-For only from config.trustProxy.
      server: { notFound: trackNotFound },
      checks: [{ name: 'bus', check: async () => { await bus.ping(); return { kind: bus.kind }; } }],
      async register(app) {
        await app.register(ingestApp, {
          config, bus, log, registry, publisher, policies,
          // The persistent secret keeps client hashes comparable across restarts and instances.
          clientHashSecret: resolveSessionSecret(config.sessionSecret, config.dataDir),
        });
        // Orders need each chatbot's credentials: without DATABASE_URL every orders request is refused (401).
        await app.register(ordersApp, { bus, publisher, credentials: postgres ? createOrdersCredentialSource({ db: postgres.db }) : undefined });
      },
      // Answer the requests waiting on a batch, then close the bus.
      async close() {
        await publisher.drain();
        await bus.close();
        await postgres?.close();
      },
    };
  },
});
