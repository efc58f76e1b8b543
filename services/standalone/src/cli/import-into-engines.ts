import type { Logger } from '@chatlytics/core';
import { createLocalRawContentStorage, importFixture, type Fixture } from '@chatlytics/dashboard';
import type { Engines } from '../engines.js';
import { backfillEvents, type BackfillInput } from './backfill.js';

export interface ImportIntoEnginesOptions {
  log: Logger;
  /** Where raw data-source contents go: DATA_DIR/storage, where the dashboard reads them. Without it they are not stored. */
  storageDir?: string;
}

/**
 * A fixture (the format in services/standalone/README.md), checked with parseFixture before
 * anything opens or is written, into both stores, as `npm run cli -- import` does: accounts, chatbots, conversations and data sources upserted into PostgreSQL,
 * its events backfilled into ClickHouse. The CLI, the browser tests and the benchmarks that load
 * the demo data all go through here, so they load it the same way.
 */
export function importIntoEngines(engines: Pick<Engines, 'postgres' | 'clickhouse'>, fixture: Fixture, opts: ImportIntoEnginesOptions) {
  return importFixture(engines.postgres.db, fixture, {
    storage: opts.storageDir === undefined ? undefined : createLocalRawContentStorage(opts.storageDir),
    onEvents: (events) => backfillEvents(engines.clickhouse, events as BackfillInput[], opts.log),
  });
}
