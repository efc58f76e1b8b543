import type { Config, Logger } from '@chatlytics/core';
import type { Postgres } from '@chatlytics/postgres';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { EventBus } from '@chatlytics/bus';

export interface CommandContext {
  config: Config;
  log: Logger;
  /**
   * The stores of the running server when it runs the command for a CLI (src/admin): commands
   * use them instead of opening their own, which the DATA_DIR lock would refuse.
   */
  stores?: { postgres: Postgres; clickhouse: ClickHouseEngine; bus: EventBus };
}
