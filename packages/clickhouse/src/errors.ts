import { AppError } from '@chatlytics/core';

/**
 * Every coded error of this package. ClickHouse's own failures keep the engine's numeric
 * code (`clickhouseCode`) and its message text, so callers can branch on the code
 * (e.g. 164 READONLY) and logs show what the engine said.
 */
export const ClickHouseErrorCode = {
  /** The engine refused or failed a statement; `clickhouseCode` says why. */
  QUERY: 'CLICKHOUSE_001',
  /** The engine could not be reached (network, timeout, process-level failure). */
  UNAVAILABLE: 'CLICKHOUSE_002',
  /** close() was called; the engine takes no more work. */
  CLOSED: 'CLICKHOUSE_003',
  /** A table or database name that is not a plain identifier (we never quote user input into SQL). */
  BAD_IDENTIFIER: 'CLICKHOUSE_004',
  /** A migration file name or content problem, including an edited applied migration. */
  MIGRATION: 'CLICKHOUSE_005',
  /** sqlFile() asked for a query file that does not exist. */
  SQL_FILE: 'CLICKHOUSE_006',
  /** The HTTP interface was mounted on a server that cuts URLs shorter than ClickHouse does. */
  BRIDGE_HOST: 'CLICKHOUSE_007',
} as const;

/**
 * Codes after which the same statement may succeed later: overload, timeouts, lost
 * connections. Everything else (syntax, unknown table, bad data) fails again on retry.
 */
const RETRIABLE_CLICKHOUSE_CODES = new Set([
  159, // TIMEOUT_EXCEEDED
  202, // TOO_MANY_SIMULTANEOUS_QUERIES
  209, // SOCKET_TIMEOUT
  210, // NETWORK_ERROR
  241, // MEMORY_LIMIT_EXCEEDED
  252, // TOO_MANY_PARTS: merges catch up
  319, // UNKNOWN_STATUS_OF_INSERT: retry with the same dedup token is safe
  394, // QUERY_WAS_CANCELLED
]);

export class ClickHouseError extends AppError {
  /** ClickHouse's numeric error code (0 when the failure did not come from the engine). */
  readonly clickhouseCode: number;
  constructor(code: string, message: string, opts: { clickhouseCode?: number; retriable?: boolean; statusCode?: number; cause?: unknown } = {}) {
    const clickhouseCode = opts.clickhouseCode ?? 0;
    super(code, message, {
      statusCode: opts.statusCode ?? 500,
      retriable: opts.retriable ?? RETRIABLE_CLICKHOUSE_CODES.has(clickhouseCode),
      cause: opts.cause,
    });
    this.name = 'ClickHouseError';
    this.clickhouseCode = clickhouseCode;
  }
}

/** A failure reported by the engine itself: message `Code: N. DB::Exception: ...`. */
export const queryFailed = (clickhouseCode: number, message: string, cause?: unknown) =>
  new ClickHouseError(ClickHouseErrorCode.QUERY, message, { clickhouseCode, cause });

export const unavailable = (message: string, cause?: unknown) =>
  new ClickHouseError(ClickHouseErrorCode.UNAVAILABLE, message, { retriable: true, statusCode: 503, cause });

export const closed = () =>
  new ClickHouseError(ClickHouseErrorCode.CLOSED, 'ClickHouse engine is closed', { statusCode: 503 });

export const badIdentifier = (what: string, value: string) =>
  new ClickHouseError(ClickHouseErrorCode.BAD_IDENTIFIER, `Invalid ${what} ${JSON.stringify(value)}: expected [A-Za-z_][A-Za-z0-9_]*`, { statusCode: 400 });

export const migrationError = (message: string, cause?: unknown) =>
  new ClickHouseError(ClickHouseErrorCode.MIGRATION, message, { cause });

export const sqlFileError = (message: string, cause?: unknown) =>
  new ClickHouseError(ClickHouseErrorCode.SQL_FILE, message, { cause });

/**
 * An exception raised by our HTTP bridge itself, worded like the engine's own
 * (`Code: N. DB::Exception: ... (NAME)`), because @clickhouse/client parses exactly that.
 */
export const engineStyleError = (clickhouseCode: number, type: string, message: string) =>
  queryFailed(clickhouseCode, `Code: ${clickhouseCode}. DB::Exception: ${message}. (${type})`);
