/**
 * Entry point of `npm run start:consumer`: the only place here that reads the environment. It
 * opens ClickHouse and the bus and starts consuming; consumerApp serves its probes and metrics.
 */
import { acquireDataDirLock } from '@chatlytics/core';
import { runService } from '@chatlytics/core/http';
import { createEventBus } from '@chatlytics/bus';
import { createClickHouse, runMigrations } from '@chatlytics/clickhouse';
import { consumerApp, createConsumer } from './app.js';

await runService(process.env, {
  name: 'consumer',
  title: 'Chatlytics consumer',
  port: (config) => config.consumerPort,
  async open({ config, log, registry }) {
    // The embedded engines (chdb, the event log) allow one process per DATA_DIR; against servers
    // (Kafka and a ClickHouse URL) several consumers may run side by side in one group.
    const embedded = !config.kafka.brokers || !config.clickhouse.url;
    const lock = embedded ? await acquireDataDirLock(config.dataDir, 'consumer') : undefined;
    const opened: { close(): Promise<void> }[] = [];
    // Bus before ClickHouse on the way out: nothing is written once the consumer stopped.
    const closeStores = async () => {
      for (const engine of opened.reverse()) await engine.close().catch(() => undefined);
      await lock?.release();
    };
    try {
      const clickhouse = await createClickHouse(config, log);
      opened.push(clickhouse);
      await runMigrations(clickhouse, { cluster: config.clickhouse.cluster });
      const bus = await createEventBus(config, log, registry);
      opened.push(bus);
      const consumer = createConsumer({ config, bus, clickhouse, log, registry });
      return {
        async register(app) {
          await app.register(consumerApp, { registry, bus, clickhouse, consumer, metricsToken: config.metricsToken });
          await consumer.start();
        },
        // Let the consumer write and commit its batch, then close the stores.
        async close() {
          await consumer.stop();
          await closeStores();
        },
      };
    } catch (err) {
      await closeStores();
      throw err;
    }
  },
});
