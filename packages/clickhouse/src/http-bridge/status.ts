/**
 * ClickHouse exception code → HTTP status, following ClickHouse's own
 * src/Server/HTTP/exceptionCodeToHTTPStatus.cpp for the codes the bridge can meet.
 * Deliberate differences (the data team's limit codes below are 4xx too): 516 (bad or
 * missing key) is 401, so HTTP clients know to authenticate; 164 (a write on the read-only interface) is 403 instead of ClickHouse's
 * 500, because the caller's mistake must not look like a server failure in our metrics.
 */
const BAD_REQUEST = [
  6, 25, 26, 27, 36, 38, 41, 44, 53, 62, 72, 117, 130, 376, 456, 457,
  // 15 DUPLICATE_COLUMN, 16 NO_SUCH_COLUMN_IN_TABLE, 69 ARGUMENT_OUT_OF_BOUND, 321 VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  15, 16, 69, 321,
];
const NOT_FOUND = [
  60, // UNKNOWN_TABLE
  46, // UNKNOWN_FUNCTION
  47, // UNKNOWN_IDENTIFIER
  50, // UNKNOWN_TYPE
  73, // UNKNOWN_FORMAT
  81, // UNKNOWN_DATABASE
  115, // UNKNOWN_SETTING
];

const STATUS = new Map<number, number>([
  ...BAD_REQUEST.map((c) => [c, 400] as [number, number]),
  ...NOT_FOUND.map((c) => [c, 404] as [number, number]),
  [194, 401], // REQUIRED_PASSWORD
  [516, 401], // AUTHENTICATION_FAILED (ClickHouse: 403, see above)
  [497, 403], // ACCESS_DENIED
  [164, 403], // READONLY (ClickHouse: 500, see above)
  [48, 501], // NOT_IMPLEMENTED
  [159, 408], // TIMEOUT_EXCEEDED
  // The data team's limits: the query asked for more than it may have. A client error, so
  // it shows as the caller's in our metrics, never as a failure of the service.
  [158, 400], // TOO_MANY_ROWS (max_rows_to_read)
  [307, 400], // TOO_MANY_BYTES
  [396, 400], // TOO_MANY_ROWS_OR_BYTES (max_result_rows / max_result_bytes)
  [241, 400], // MEMORY_LIMIT_EXCEEDED of the query itself; the process-wide limit is 503 below
  [201, 429], // QUOTA_EXCEEDED (a key's hourly budget)
  [202, 429], // TOO_MANY_SIMULTANEOUS_QUERIES (ClickHouse: 503; it is the caller's concurrency)
  [394, 499], // QUERY_WAS_CANCELLED: the client went away
]);

export function httpStatusFor(clickhouseCode: number, message = ''): number {
  // "Memory limit (total) exceeded" is the whole engine running short, not this query's limit.
  if (clickhouseCode === 241 && /\(total\)/.test(message)) return 503;
  return STATUS.get(clickhouseCode) ?? 500;
}

/** Content-Type ClickHouse sends for a few common output formats. */
export function contentTypeFor(format: string): string {
  const f = format.toLowerCase();
  if (f.startsWith('tabseparated') || f.startsWith('tsv')) return 'text/tab-separated-values; charset=UTF-8';
  if (f.startsWith('csv')) return 'text/csv; charset=UTF-8';
  if (f.startsWith('json') && f.includes('eachrow')) return 'application/x-ndjson; charset=UTF-8';
  if (f.startsWith('json')) return 'application/json; charset=UTF-8';
  if (['parquet', 'arrow', 'arrowstream', 'native', 'orc', 'avro'].includes(f) || f.startsWith('rowbinary')) return 'application/octet-stream';
  return 'text/plain; charset=UTF-8';
}
