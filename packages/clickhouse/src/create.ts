import path from 'node:path';
import type { Config, Logger } from '@chatlytics/core';
import type { ClickHouseEngine } from './types.js';
import { createChdbEngine } from './chdb-engine.js';
import { createServerEngine } from './server-engine.js';

/** CLICKHOUSE_URL set → a ClickHouse server; unset → the embedded engine in DATA_DIR/clickhouse. */
export function createClickHouse(config: Config, log: Logger): Promise<ClickHouseEngine> {
  const { url, user, password, database, embeddedConnections } = config.clickhouse;
  if (url) return createServerEngine({ url, user, password, database, log });
  return createChdbEngine({ path: path.join(config.dataDir, 'clickhouse'), database, log, connections: embeddedConnections });
}
