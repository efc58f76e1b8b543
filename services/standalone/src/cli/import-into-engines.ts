import type { Config, Logger } from '@chatlytics/core';
import { createLocalRawContentStorage, importFixture, type Fixture } from '@chatlytics/dashboard';
import type { Engines } from '../engines.js';
import { backfillEvents, type BackfillInput } from './backfill.js';
import { openBusSink } from './bus-sink.js';

export interface ImportIntoEnginesOptions {
  config: Config;
  log: Logger;
  /** Where raw data-source contents go: DATA_DIR/storage, where the dashboard reads them. Without it they are not stored. */
  storageDir?: string;
  /** A consumer already drains `engines.bus` (the running server's); otherwise one runs during the import. */
  consumerRunning?: boolean;
}

/**
 * A fixture (the format in services/standalone/README.md), checked with parseFixture before
 * anything opens or is written, into both stores, as `npm run cli -- import` does: accounts,
 * chatbots, conversations and data sources upserted into PostgreSQL, its events published to the
 * bus and stored by the consumer. The CLI, the browser tests and the benchmarks that load the
 * demo data all go through here, so they load it the same way.
 */
export async function importIntoEngines(engines: Pick<Engines, 'postgres' | 'clickhouse' | 'bus'>, fixture: Fixture, opts: ImportIntoEnginesOptions) {
  const sink = await openBusSink({ config: opts.config, bus: engines.bus, clickhouse: engines.clickhouse, log: opts.log, consumerRunning: opts.consumerRunning ?? false });
  try {
    return await importFixture(engines.postgres.db, fixture, {
      storage: opts.storageDir === undefined ? undefined : createLocalRawContentStorage(opts.storageDir),
      onEvents: (events) => backfillEvents(engines.clickhouse, sink, events as BackfillInput[], opts.log),
    });
  } finally {
    await sink.close();
  }
}
