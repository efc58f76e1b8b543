import type { Logger } from '@chatlytics/core';
import type { ClickHouseEngine } from '../types.js';

/**
 * One row of `sql_query_log` (clickhouse/migrations/0010_sql_query_log.sql): every query a key
 * sent to the read-only interface, refused ones included. `raw_query` is an EPHEMERAL column:
 * the table stores only its normalised form (literals replaced by `?`) and that form's hash.
 */
export interface SqlQueryLogEntry {
  query_id: string;
  key_name: string;
  raw_query: string;
  database: string;
  /** 'YYYY-MM-DD hh:mm:ss.sss' in UTC. */
  started_at: string;
  duration_ms: number;
  read_rows: number;
  read_bytes: number;
  result_bytes: number;
  peak_memory_usage: number | null;
  status: 'ok' | 'error' | 'cancelled';
  /** ClickHouse's error code; 0 for success. */
  error_code: number;
}

const COLUMNS = ['query_id', 'key_name', 'raw_query', 'database', 'started_at', 'duration_ms', 'read_rows', 'read_bytes',
  'result_bytes', 'peak_memory_usage', 'status', 'error_code'] as const satisfies readonly (keyof SqlQueryLogEntry)[];

export interface QueryLogWriter {
  write(entry: SqlQueryLogEntry): void;
  /** Inserts what is buffered now. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Buffers entries and inserts them every `flushMs` (or at `maxBatch`): one part per batch,
 * not per query. A failed insert is logged and its entries dropped: the log must never make
 * a query fail or memory grow without bound.
 */
export function createQueryLogWriter(engine: ClickHouseEngine, log: Logger, opts: { flushMs?: number; maxBatch?: number } = {}): QueryLogWriter {
  const flushMs = opts.flushMs ?? 1000;
  const maxBatch = opts.maxBatch ?? 500;
  let buffer: SqlQueryLogEntry[] = [];
  let timer: NodeJS.Timeout | undefined;
  let pending: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const rows = buffer;
    buffer = [];
    if (rows.length === 0) return pending;
    // An explicit column list: the EPHEMERAL raw_query is only read when named.
    const body = Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    pending = pending.then(() => engine.insert('sql_query_log', body, { format: 'JSONEachRow', columns: COLUMNS })).catch((err: unknown) => {
      log.error({ err, rows: rows.length }, 'could not write the SQL query log');
    });
    return pending;
  };

  return {
    write(entry) {
      buffer.push(entry);
      if (buffer.length >= maxBatch) void flush();
      else timer ??= setTimeout(() => void flush(), flushMs).unref();
    },
    flush,
    close: flush,
  };
}
