import { createLogger, createMetricsRegistry, acquireDataDirLock } from '@chatlytics/core';
import { createHttpServer, closeOnSignals, exitOnStartupError, loadConfigOrExit } from '@chatlytics/core/http';
import { createEventBus } from '@chatlytics/bus';
import { createClickHouse, runMigrations } from '@chatlytics/clickhouse';
import { consumerApp, createConsumer } from './app.js';

// Entry point of `npm run start:consumer`: the only place here that reads process.env.
const config = loadConfigOrExit(process.env);
const log = createLogger(config.logLevel, 'consumer');
// The embedded engines (chdb, the event log) allow one process per DATA_DIR; against servers
// (Kafka and a ClickHouse URL) several consumers may run side by side in one group.
const embedded = !config.kafka.brokers || !config.clickhouse.url;
let lock: { release(): Promise<void> } | undefined;
try {
  if (embedded) lock = await acquireDataDirLock(config.dataDir, 'consumer');
} catch (err) {
  exitOnStartupError(err);
}

const registry = createMetricsRegistry();
const opened: { close(): Promise<void> }[] = [];
try {
  const clickhouse = await createClickHouse(config, log);
  opened.push(clickhouse);
  await runMigrations(clickhouse);
  const bus = await createEventBus(config, log, registry);
  opened.push(bus);
  const consumer = createConsumer({ config, bus, clickhouse, log, registry });
  const app = await createHttpServer({ title: 'Chatlytics consumer', config, name: 'consumer' });
  await app.register(consumerApp, { registry, bus, clickhouse, consumer });
  await consumer.start();
  closeOnSignals(async () => {
    // Order: stop answering, then let the consumer write and commit its batch, then close
    // the bus before ClickHouse (nothing is written once the consumer stopped).
    await app.close();
    await consumer.stop();
    for (const engine of opened.reverse()) await engine.close();
    await lock?.release();
  }, log);
  await app.listen({ port: config.consumerPort, host: config.host });
} catch (err) {
  log.fatal({ err }, 'consumer start-up failed');
  for (const engine of opened.reverse()) await engine.close().catch(() => undefined);
  await lock?.release();
  process.exit(1);
}
