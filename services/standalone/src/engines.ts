import path from 'node:path';
import type { Config, Logger, Registry } from '@chatlytics/core';
import { createPostgres, type Postgres } from '@chatlytics/postgres';
import { createClickHouse, runMigrations, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { createEventBus, type EventBus } from '@chatlytics/bus';

export interface Engines {
  postgres: Postgres;
  clickhouse: ClickHouseEngine;
  bus: EventBus;
  close(): Promise<void>;
}

export interface OpenEnginesOptions {
  /** Apply PostgreSQL and ClickHouse migrations (start-up and `cli migrate` do). */
  migrate?: boolean;
  /** The CLI's `migrate` needs no bus. */
  bus?: boolean;
}

/**
 * Opens the three engines the configuration selects (server or embedded) and migrates them.
 * Close order is the reverse of the data flow: nothing can publish once the bus is closed,
 * and ClickHouse/PostgreSQL close last because the consumer and handlers drain into them.
 */
export async function openEngines(config: Config, log: Logger, registry?: Registry, opts: OpenEnginesOptions = {}): Promise<Engines> {
  const opened: { close(): Promise<void> }[] = [];
  try {
    const postgres = await createPostgres({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log });
    opened.push(postgres);
    const clickhouse = await createClickHouse(config, log);
    opened.push(clickhouse);
    if (opts.migrate !== false) {
      await postgres.migrate();
      await runMigrations(clickhouse, { cluster: config.clickhouse.cluster });
    }
    const bus = opts.bus === false ? undefined : await createEventBus(config, log, registry);
    if (bus) opened.push(bus);
    return {
      postgres,
      clickhouse,
      bus: bus as EventBus,
      async close() {
        for (const engine of opened.reverse()) {
          try { await engine.close(); } catch (err) { log.error({ err }, 'error closing an engine'); }
        }
      },
    };
  } catch (err) {
    for (const engine of opened.reverse()) await engine.close().catch(() => undefined);
    throw err;
  }
}

export const clickhouseDataPath = (config: Config) => path.join(config.dataDir, 'clickhouse');
