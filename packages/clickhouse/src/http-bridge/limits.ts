import type { SqlLimits } from '@chatlytics/core';

/**
 * The data team's limits as ClickHouse settings: the embedded interface passes them to its
 * read-only sessions, and the server deployment's `data_team` profile (users.d) must hold the
 * same values. `throw` modes, so an exceeded limit is an error with ClickHouse's own code
 * (158 TOO_MANY_ROWS, 241 MEMORY_LIMIT_EXCEEDED, 396 TOO_MANY_ROWS_OR_BYTES, 159
 * TIMEOUT_EXCEEDED) rather than a silently truncated result. max_threads bounds the cores one
 * query takes, so the data team's queries leave CPU to ingestion (2 cores is the target host).
 */
export function limitSettings(limits: SqlLimits): Record<string, string | number> {
  return {
    max_memory_usage: limits.maxMemoryUsage,
    max_execution_time: limits.maxExecutionTime,
    max_result_rows: limits.maxResultRows,
    max_result_bytes: limits.maxResultBytes,
    result_overflow_mode: 'throw',
    max_rows_to_read: limits.maxRowsToRead,
    read_overflow_mode: 'throw',
    max_threads: limits.maxThreads,
    // Stack traces and symbol addresses are the engine's internals, not data.
    allow_introspection_functions: 0,
  };
}

/** `clickhouse local` command-line form, for a chdb Session's connectionArgs. */
export const limitArgs = (limits: SqlLimits): string[] =>
  Object.entries(limitSettings(limits)).map(([k, v]) => `--${k}=${v}`);
