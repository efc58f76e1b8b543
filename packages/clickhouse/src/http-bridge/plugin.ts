import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { SQL_LIMIT_DEFAULTS, SQL_QUOTA_DEFAULTS, type SqlLimits, type SqlQuota } from '@chatlytics/core';
import http from 'node:http';
import { ClickHouseError, ClickHouseErrorCode, engineStyleError } from '../errors.js';
import { SessionPool } from './sessions.js';
import { createFileInserter } from '../file-insert.js';
import path from 'node:path';
import { allowStatement, planRequest } from './plan.js';
import { createStatementParser, withoutLiterals, type Statement } from './statement.js';
import { bindValues, declaredTypes } from './params.js';
import { hidePaths } from './hide-paths.js';
import { contentTypeFor, httpStatusFor } from './status.js';
import { execute } from './execute.js';
import { compress, flatten, header, queryId, requestBody } from './http-io.js';
import { limitArgs } from './limits.js';
import { createGovernor, type SqlPrincipal } from './governor.js';
import { createSandbox } from './sandbox.js';
import type { SqlQueryLogEntry } from './query-log.js';

/**
 * ClickHouse's HTTP interface over the embedded engine, so curl, @clickhouse/client and the
 * JDBC driver work against `/clickhouse` as against a server. Not wrapped in fastify-plugin
 * on purpose: its content-type parsers, hooks and error handler must stay inside its prefix.
 */
export interface ClickHouseHttpOptions {
  /** The embedded engine's data directory (DATA_DIR/clickhouse). */
  sessionPath: string;
  /** Database when the request names none. */
  database: string;
  /**
   * true: the data team's interface. Every query runs on a --readonly=1 session with `limits`,
   * under the key's quota and the concurrency limit, and is written to the query log.
   */
  readonly: boolean;
  /** Called first on every request; null/false → 401 with code 516. */
  authenticate?: (req: FastifyRequest) => SqlPrincipal | null | boolean | Promise<SqlPrincipal | null>;
  /** Limits of read-only queries (default SQL_LIMIT_DEFAULTS). */
  limits?: Partial<SqlLimits>;
  /** Quota of keys that carry none of their own (default SQL_QUOTA_DEFAULTS). */
  quota?: SqlQuota;
  /** How long a query waits for one of the `maxConcurrentQueries` slots before 429. Default 2000 ms. */
  queueWaitMs?: number;
  /** Receives one entry per query of the read-only interface (see createQueryLogWriter). */
  onQueryLogged?: (entry: SqlQueryLogEntry) => void;
  /** Largest request body in bytes (compressed size when compressed). Default 32 MiB. */
  bodyLimit?: number;
  /**
   * Directories a read-only interface's error messages never name (replaced by `<data>`):
   * where the service keeps its files. Default: `sessionPath`.
   */
  hiddenPaths?: readonly string[];
}

/** Seconds a connection may stay silent beyond a query's max_execution_time: the engine's own 159 comes first. */
const QUERY_TIMEOUT_MARGIN_S = 10;

/** Longer SQL is cut in the query log (an INSERT body on the read-only interface can be huge). */
const MAX_LOGGED_SQL = 100_000;

/** Functions whose arguments include a key: a statement calling one is logged without its literals. */
const KEYED_FUNCTION = /\b(?:encrypt|decrypt|tryDecrypt|aes_encrypt_mysql|aes_decrypt_mysql)\(/i;

declare module 'fastify' {
  interface FastifyRequest {
    sqlPrincipal?: SqlPrincipal;
  }
}

const Querystring = Type.Object({
  query: Type.Optional(Type.String({ description: 'The SQL; or, with a POST body, its first part (e.g. INSERT ... FORMAT JSONEachRow)' })),
  database: Type.Optional(Type.String()),
  default_format: Type.Optional(Type.String({ description: 'Output format without a FORMAT clause; default TabSeparated' })),
  query_id: Type.Optional(Type.String()),
  enable_http_compression: Type.Optional(Type.String({ description: '1: gzip/deflate the response when Accept-Encoding allows' })),
}, { additionalProperties: true, description: 'Also param_<name> query parameters and insert settings (e.g. insert_deduplication_token)' });

const TextResponse = { description: 'Result in the requested format, or ClickHouse exception text', type: 'string' } as const;
const schema = (summary: string) => ({
  tags: ['sql'],
  summary,
  querystring: Querystring,
  response: { 200: TextResponse, '4xx': TextResponse, '5xx': TextResponse },
});

/**
 * ClickHouse's default `http_max_uri_size`. Query parameters travel in the URL (the client puts
 * `param_<name>` there), so a client may send URLs this long: the consumer's stored-id lookup
 * binds 2,000 UUIDs (~90 kB). Node's servers cut request heads at 16 KiB by default and answer
 * 431, so whoever hosts this interface creates its server with
 * `http: { maxHeaderSize: CLICKHOUSE_HTTP_MAX_URI_BYTES }`; registration checks it.
 */
export const CLICKHOUSE_HTTP_MAX_URI_BYTES = 1024 * 1024;

function assertHostAcceptsLongUris(app: FastifyInstance): void {
  const own = (app.server as { maxHeaderSize?: number }).maxHeaderSize;
  const effective = own ?? http.maxHeaderSize;
  if (effective < CLICKHOUSE_HTTP_MAX_URI_BYTES) {
    throw new ClickHouseError(ClickHouseErrorCode.BRIDGE_HOST,
      `the ClickHouse HTTP interface needs a server accepting ${CLICKHOUSE_HTTP_MAX_URI_BYTES}-byte request heads (ClickHouse's http_max_uri_size); this one cuts them at ${effective}: create it with http: { maxHeaderSize: CLICKHOUSE_HTTP_MAX_URI_BYTES }`);
  }
}

export async function clickhouseHttp(app: FastifyInstance, opts: ClickHouseHttpOptions): Promise<void> {
  assertHostAcceptsLongUris(app);
  const limits: SqlLimits = { ...SQL_LIMIT_DEFAULTS, ...opts.limits };
  const pool = new SessionPool({ path: opts.sessionPath, readonlyArgs: limitArgs(limits) });
  const governor = createGovernor({
    limits, quota: opts.quota ?? SQL_QUOTA_DEFAULTS, queueWaitMs: opts.queueWaitMs ?? 2000,
    control: (sql) => pool.control(sql), onQueryLogged: opts.onQueryLogged,
  });
  // Every text is parsed by the engine first (statement.ts); a read-only session's is then
  // checked on that parse (sandbox.ts) and only the engine's canonical text runs.
  const parse = (sql: string, params: Record<string, unknown>) => pool.parse(sql, params);
  const parseStatement = createStatementParser(parse);
  /** What the query log keeps of a parsed statement: its canonical text, literals and all, unless it holds a key. */
  const loggedText = async (statement: Statement) =>
    (KEYED_FUNCTION.test(statement.text) ? await withoutLiterals(parse, statement) : statement.text).slice(0, MAX_LOGGED_SQL);
  const sandbox = createSandbox({ run: parse });
  // The data directory's location is not the data team's to know (it is where files are).
  const hide = opts.readonly ? hidePaths(opts.hiddenPaths ?? [opts.sessionPath]) : (text: string) => text;
  // Only a writable bridge (tests of the server adapter) ever inserts; a read-only one refuses first.
  const insertRowBinary = opts.readonly ? undefined : createFileInserter(path.join(opts.sessionPath, 'insert-spool'));
  const bodyLimit = opts.bodyLimit ?? 32 * 1024 * 1024;
  app.addHook('onClose', async () => pool.close());

  // Bodies are SQL or row data in any format: keep them as bytes, whatever the content type
  // (curl -d says form-urlencoded; the client sends none).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));

  app.addHook('onRequest', async (req, reply) => {
    // /ping stays open, as on ClickHouse: liveness probes carry no credentials.
    if (req.routeOptions.url?.endsWith('/ping')) return;
    if (!opts.authenticate) return;
    const who = await opts.authenticate(req);
    if (who) req.sqlPrincipal = who === true ? { name: 'default' } : who;
    else {
      reply.header('WWW-Authenticate', 'Basic realm="ClickHouse", charset="UTF-8"');
      throw engineStyleError(516, 'AUTHENTICATION_FAILED', 'default: Authentication failed: password is incorrect, or there is no user with such name');
    }
  });

  app.setErrorHandler(async (error, req, reply) => {
    const err = error as Error;
    const ch = err instanceof ClickHouseError && err.clickhouseCode > 0 ? err : null;
    const fastifyStatus = (err as { statusCode?: number }).statusCode;
    const code = ch ? ch.clickhouseCode : fastifyStatus && fastifyStatus < 500 ? 36 : 1001;
    const status = ch ? httpStatusFor(code, err.message) : fastifyStatus ?? 500;
    const retryAfter = (err as { retryAfterSeconds?: number }).retryAfterSeconds;
    if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
    const text = hide(ch ? err.message : `Code: ${code}. DB::Exception: ${err.message}. (${code === 36 ? 'BAD_ARGUMENTS' : 'STD_EXCEPTION'})`);
    if (status >= 500 && code !== 48) req.log.error({ err, clickhouseCode: code }, 'ClickHouse HTTP interface failed');
    reply.code(status)
      .header('X-ClickHouse-Exception-Code', String(code))
      .header('X-ClickHouse-Query-Id', queryId(req))
      .header('Content-Type', 'text/plain; charset=UTF-8');
    return Buffer.from(`${text}\n`);
  });

  app.get('/ping', { schema: { tags: ['sql'], summary: 'Liveness of the ClickHouse HTTP interface', response: { 200: TextResponse } } }, async (_req, reply) => {
    reply.header('Content-Type', 'text/plain; charset=UTF-8');
    return Buffer.from('Ok.\n');
  });

  // A query may compute for its whole max_execution_time without sending a byte: the host
  // server's idle timeout (HTTP_IDLE_TIMEOUT_MS) must not cut it first with an empty reply.
  const queryIdleMs = (limits.maxExecutionTime + QUERY_TIMEOUT_MARGIN_S) * 1000;
  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    const socket = req.raw.socket as typeof req.raw.socket & { timeout?: number };
    if (socket.timeout !== undefined && socket.timeout > 0 && socket.timeout < queryIdleMs) socket.setTimeout(queryIdleMs);
    const search = flatten(req.query as Record<string, unknown>);
    const body = await requestBody(req, bodyLimit * 8);
    // GET and `readonly` are read-only in ClickHouse too.
    const readonly = opts.readonly || req.method === 'GET' || (search.readonly !== undefined && search.readonly !== '0');
    if (req.method === 'GET' && search.query === undefined) {
      reply.header('Content-Type', 'text/plain; charset=UTF-8');
      return Buffer.from('Ok.\n');
    }
    if (/^multipart\//i.test(req.headers['content-type'] ?? '')) {
      throw engineStyleError(48, 'NOT_IMPLEMENTED', 'multipart/form-data requests are not supported here; send param_<name> in the URL');
    }
    const database = search.database ?? header(req, 'x-clickhouse-database') ?? opts.database;
    const defaultFormat = search.default_format ?? header(req, 'x-clickhouse-format') ?? 'TabSeparated';
    const governed = opts.readonly ? req.sqlPrincipal ?? { name: 'default' } : null;
    const base = { queryId: queryId(req), sql: [search.query, body.toString('utf8')].filter(Boolean).join('\n').slice(0, MAX_LOGGED_SQL), database };
    let plan;
    try {
      plan = planRequest({ urlQuery: search.query, body, search, defaultFormat, readonly });
      if (plan.kind === 'query') {
        const statement = await parseStatement(plan.sql);
        base.sql = await loggedText(statement);
        allowStatement(statement, readonly);
        const params = bindValues(statement.text, plan.params as Record<string, string>);
        if (readonly) {
          const identifiers = [...declaredTypes(statement.text)].filter(([, type]) => type === 'Identifier').map(([name]) => name);
          await sandbox(statement, params, identifiers, database);
        }
        // A writable bridge serves the service's own statements (tests of the server adapter):
        // their text runs as sent, since an INSERT's inline VALUES are data the canonical form drops.
        plan = { ...plan, sql: readonly ? statement.text : plan.sql, params };
      }
    } catch (err) {
      if (governed) governor.refused(governed, base, err);
      throw err;
    }
    const owner = governed?.name ?? '';
    const run = (prefix?: string) => execute(pool, owner, database, readonly, plan, insertRowBinary, prefix);
    const { payload, format, summary } = governed ? await governor.run(governed, reply, base, run) : await run();
    reply.header('X-ClickHouse-Query-Id', queryId(req))
      .header('X-ClickHouse-Format', format)
      .header('X-ClickHouse-Summary', JSON.stringify(summary))
      .header('Content-Type', contentTypeFor(format));
    return compress(req, reply, search, payload);
  };
  app.get('/', { schema: schema('Run a read-only query (ClickHouse HTTP interface)') }, handle);
  app.post('/', { schema: schema('Run a query or insert rows (ClickHouse HTTP interface)') }, handle);
}

