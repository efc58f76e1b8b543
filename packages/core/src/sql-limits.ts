/**
 * What one query of the data team may use, as ClickHouse settings (bytes, seconds, rows) plus
 * how many may run at once. The embedded /clickhouse interface applies them to its sessions;
 * clickhouse/deploy/users.d/data_team.xml must carry the same numbers (a test compares).
 */
export interface SqlLimits {
  maxMemoryUsage: number;
  maxExecutionTime: number;
  maxResultRows: number;
  maxResultBytes: number;
  maxRowsToRead: number;
  maxConcurrentQueries: number;
  /** Threads one query may use (max_threads), so data-team queries cannot take every core from ingestion. */
  maxThreads: number;
}

/** Per-key budget over a rolling hour; a key may carry its own, else these apply. */
export interface SqlQuota {
  queriesPerHour: number;
  readRowsPerHour: number;
}

export const SQL_LIMIT_DEFAULTS: SqlLimits = {
  maxMemoryUsage: 2_000_000_000,
  maxExecutionTime: 30,
  maxResultRows: 1_000_000,
  // Results are buffered in the process before they are sent, so this bounds that buffer too.
  maxResultBytes: 100_000_000,
  maxRowsToRead: 1_000_000_000,
  maxConcurrentQueries: 2,
  maxThreads: 1,
};
export const SQL_QUOTA_DEFAULTS: SqlQuota = { queriesPerHour: 1000, readRowsPerHour: 100_000_000_000 };
