/**
 * One interface over ClickHouse, two implementations that run the same SQL files:
 * `@clickhouse/client` against a server (or our HTTP bridge), and `chdb` in-process.
 * Parameters are always `{name:Type}` placeholders, never spliced into SQL by callers: the server
 * engine sends them apart from the text, the embedded one substitutes them as ClickHouse does
 * (inline-params.ts).
 */
export type QueryParams = Record<string, unknown>;

export interface InsertOptions {
  /**
   * insert_deduplication_token: a retried batch with the same token is ignored by the engine,
   * so a crash between insert and offset commit never doubles rows.
   */
  dedupToken?: string;
  settings?: Record<string, string | number | boolean>;
  /**
   * Format of a prepared Buffer body (default JSONEachRow). JSONCompactEachRow and RowBinary
   * rows carry values in the order of `columns` (required with them), without names:
   * RowBinary is the cheapest for ClickHouse to read, the consumer's format.
   */
  format?: InsertFormat;
  columns?: readonly string[];
}

export type InsertFormat = 'JSONEachRow' | 'JSONCompactEachRow' | 'RowBinary';

export interface ClickHouseEngine {
  readonly kind: 'embedded' | 'server';
  /** The database every unqualified table name refers to (CLICKHOUSE_DATABASE). */
  readonly database: string;
  /** DDL or any statement whose result is not needed. */
  command(sql: string, params?: QueryParams): Promise<void>;
  /** A SELECT; rows as objects (JSONEachRow semantics: 64-bit integers arrive as strings). */
  query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]>;
  /** Rows as objects, or a prepared JSONEachRow buffer (the fast path). */
  insert(table: string, rows: readonly object[] | Buffer, opts?: InsertOptions): Promise<void>;
  /** True when the engine answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
