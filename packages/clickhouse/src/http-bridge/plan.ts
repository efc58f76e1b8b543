import { engineStyleError } from '../errors.js';
import type { Statement } from './statement.js';

/**
 * What one HTTP request asks for, decided before any engine work, following ClickHouse's
 * HTTP interface: the query is the `query` URL parameter, the POST body, or the URL query
 * followed by the body; an `INSERT ... FORMAT x` in the URL with a body is an insert of
 * the body's rows.
 */
export type RawFormat = 'JSONEachRow' | 'JSONCompactEachRow' | 'CSV' | 'CSVWithNames' | 'TSV' | 'TabSeparated' | 'TSVWithNames' | 'TabSeparatedWithNames' | 'RowBinary';
const RAW_FORMATS = new Map<string, RawFormat>(
  (['JSONEachRow', 'JSONCompactEachRow', 'CSV', 'CSVWithNames', 'TSV', 'TabSeparated', 'TSVWithNames', 'TabSeparatedWithNames', 'RowBinary'] as const)
    .map((f) => [f.toLowerCase(), f]),
);

export type Plan =
  | { kind: 'insert'; table: string; columns?: string[]; format: RawFormat; data: Buffer; settings: Record<string, string> }
  /** `params`: the raw `param_<name>` texts from planRequest, the bound values once parsed (plugin.ts). */
  | { kind: 'query'; sql: string; format: string; params: Record<string, unknown> };

export interface PlanInput {
  urlQuery?: string;
  body: Buffer;
  /** Query-string entries other than the ones the plugin consumed itself. */
  search: Record<string, string>;
  defaultFormat: string;
  readonly: boolean;
}

/**
 * URL parameters that belong to the HTTP protocol, not to the query. They are accepted and
 * either used by the plugin (database, default_format, query_id, compression, readonly) or
 * have no meaning here: every response is buffered (wait_end_of_query), there is no
 * progress, and there are no server-side sessions (session_*: each request stands alone).
 * user/password are ignored: the key is accepted only in headers.
 */
export const PROTOCOL_PARAMS = new Set([
  'query', 'database', 'default_format', 'query_id', 'enable_http_compression', 'http_zlib_compression_level',
  'wait_end_of_query', 'send_progress_in_http_headers', 'http_headers_progress_interval_ms', 'buffer_size',
  'http_response_buffer_size', 'cancel_http_readonly_queries_on_client_close', 'session_id', 'session_timeout',
  'session_check', 'readonly', 'user', 'password', 'quota_key', 'role', 'client_protocol_version',
]);

/**
 * ClickHouse's own block compression of HTTP bodies: `compress=1` asks for a compressed
 * response (the JDBC driver's default; see native-compression.ts), `decompress=1` announces a
 * compressed request body. Protocol parameters, not settings, so a read-only user may send
 * them. Compressed request bodies are not implemented: clients send them only when told to.
 */
const NATIVE_COMPRESSION_PARAMS = new Set(['compress', 'decompress']);

function refuseCompressedBody(name: string, value: string): void {
  if (name === 'compress' || value === '0' || value === '') return;
  throw engineStyleError(48, 'NOT_IMPLEMENTED', `${name}=${value} (a request body in ClickHouse's native block compression) is not supported by this HTTP interface; `
    + 'send the body uncompressed or with Content-Encoding gzip/deflate');
}

const WRITE_STATEMENTS = new Set(['INSERT', 'CREATE', 'ALTER', 'DROP', 'TRUNCATE', 'RENAME', 'ATTACH', 'DETACH',
  'OPTIMIZE', 'KILL', 'SYSTEM', 'GRANT', 'REVOKE', 'DELETE', 'UPDATE', 'UNDROP', 'EXCHANGE', 'MOVE', 'BACKUP', 'RESTORE',
  'CHECK', 'WATCH', 'BEGIN', 'COMMIT', 'ROLLBACK', 'REPLACE', 'UNDO']);

const INSERT_FORMAT = /^\s*INSERT\s+INTO\s+(?:TABLE\s+)?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\s*(?:\(([^)]*)\))?\s*FORMAT\s+([A-Za-z]+)\s*;?\s*$/i;

export function planRequest(input: PlanInput): Plan {
  const params: Record<string, string> = {};
  const settings: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.search)) {
    if (k.startsWith('param_')) params[k.slice(6)] = v;
    else if (NATIVE_COMPRESSION_PARAMS.has(k)) refuseCompressedBody(k, v);
    else if (!PROTOCOL_PARAMS.has(k)) settings[k] = v;
  }
  const url = input.urlQuery ?? '';
  const hasBody = input.body.length > 0;
  const insert = url && hasBody ? INSERT_FORMAT.exec(url) : null;
  const rawFormat = insert ? RAW_FORMATS.get(insert[3].toLowerCase()) : undefined;
  if (insert && rawFormat) {
    if (input.readonly) throw readonlyError();
    for (const name of Object.keys(settings)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw engineStyleError(115, 'UNKNOWN_SETTING', `Unknown setting '${name}'`);
    }
    const columns = insert[2]?.split(',').map((c) => c.trim().replace(/^`(.*)`$/, '$1')).filter(Boolean);
    return { kind: 'insert', table: insert[1], columns, format: rawFormat, data: input.body, settings };
  }

  const names = Object.keys(settings);
  if (names.length > 0) {
    // Like ClickHouse with readonly=1: settings cannot be changed at all.
    if (input.readonly) throw engineStyleError(164, 'READONLY', `Cannot modify '${names[0]}' setting in readonly mode`);
    throw engineStyleError(48, 'NOT_IMPLEMENTED', `Setting '${names[0]}' as a URL parameter applies only to INSERT ... FORMAT with a body here; use a SETTINGS clause in the query`);
  }
  // What the text is (one statement? which?) is the engine's to say: statement.ts, then allowStatement.
  const sql = [url, hasBody ? input.body.toString('utf8') : ''].filter((s) => s !== '').join('\n');
  return { kind: 'query', sql, format: input.defaultFormat, params };
}

/**
 * Refuses statements by their first word, as the engine printed it. One engine session serves
 * many requests, so statements that change session state would leak into other queries.
 * Not the engine's readonly check alone: every embedded session runs as the same engine user,
 * so a KILL QUERY or SYSTEM statement that readonly=1 permits would reach the service's own
 * queries (the read-only interface's check refuses them again by their tree).
 */
export function allowStatement(statement: Statement, readonly: boolean): void {
  const keyword = statement.keyword;
  if (keyword === 'SET' && readonly) throw engineStyleError(164, 'READONLY', 'Cannot modify settings in readonly mode');
  if (keyword === 'USE' || keyword === 'SET') {
    throw engineStyleError(48, 'NOT_IMPLEMENTED', `${keyword} is not supported by this HTTP interface (requests share an engine session); use the database URL parameter or a SETTINGS clause`);
  }
  if (readonly && WRITE_STATEMENTS.has(keyword)) throw readonlyError();
}

/**
 * The format the response will be in: the query's own FORMAT clause wins over default_format.
 * `sql` is the engine's canonical text, which prints the clause on a line of its own, after
 * INTO OUTFILE and before SETTINGS.
 */
export function responseFormat(sql: string, fallback: string): string {
  const m = /\nFORMAT ([A-Za-z][A-Za-z0-9_]*)(?:\nSETTINGS [^\n]*)?$/.exec(sql);
  return m ? m[1] : fallback;
}

export const readonlyError = () => engineStyleError(164, 'READONLY', 'Cannot execute query in readonly mode');
