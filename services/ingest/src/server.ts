/**
 * Production entry point of the ingest service (`npm run start:ingest`): the only place that
 * reads the environment. It opens the bus; everything else is the ingestApp plugin.
 */
import { createEventBus } from '@chatlytics/bus';
import { resolveSessionSecret } from '@chatlytics/core';
import { runService } from '@chatlytics/core/http';
import { ingestApp, trackNotFound } from './app.js';
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
    return {
      // request.ip, and so the per-IP rate limit, honours X-Forwarded-For only from config.trustProxy.
      server: { notFound: trackNotFound },
      checks: [{ name: 'bus', check: async () => { await bus.ping(); return { kind: bus.kind }; } }],
      async register(app) {
        await app.register(ingestApp, {
          config, bus, log, registry, publisher,
          // The persistent secret keeps client hashes comparable across restarts and instances.
          clientHashSecret: resolveSessionSecret(config.sessionSecret, config.dataDir),
        });
      },
      // Answer the requests waiting on a batch, then close the bus.
      async close() {
        await publisher.drain();
        await bus.close();
      },
    };
  },
});
