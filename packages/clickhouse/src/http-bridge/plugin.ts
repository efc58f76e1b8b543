import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { ClickHouseError, engineStyleError } from '../errors.js';
import { SessionPool } from './sessions.js';
import { createFileInserter } from '../file-insert.js';
import path from 'node:path';
import { planRequest, readonlyError, responseFormat, type Plan } from './plan.js';
import { contentTypeFor, httpStatusFor } from './status.js';

/**
 * ClickHouse's HTTP interface over the embedded engine (see the data team's SQL interface in clickhouse/README.md), so curl and
 * @clickhouse/client work against `/clickhouse` as against a server. Not wrapped in
 * fastify-plugin on purpose: its content-type parsers, hooks and error handler must stay
 * inside its own prefix.
 */
export interface ClickHouseHttpOptions {
  /** The embedded engine's data directory (DATA_DIR/clickhouse). */
  sessionPath: string;
  /** Database when the request names none. */
  database: string;
  /** true: every query runs on a --readonly=1 session, so writes fail with code 164. */
  readonly: boolean;
  /** Called first on every request; false → 401 with code 516. */
  authenticate?: (req: FastifyRequest) => boolean;
  /** Seconds a read-only query may run. Default 30. */
  maxExecutionTime?: number;
  /** Largest request body in bytes (compressed size when compressed). Default 32 MiB. */
  bodyLimit?: number;
}

const gzip = promisify(zlib.gzip);
const deflate = promisify(zlib.deflate);
const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);

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

export async function clickhouseHttp(app: FastifyInstance, opts: ClickHouseHttpOptions): Promise<void> {
  const pool = new SessionPool({ path: opts.sessionPath, maxExecutionTime: opts.maxExecutionTime ?? 30 });
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
    if (opts.authenticate && !opts.authenticate(req)) {
      reply.header('WWW-Authenticate', 'Basic realm="ClickHouse", charset="UTF-8"');
      throw engineStyleError(516, 'AUTHENTICATION_FAILED', 'default: Authentication failed: password is incorrect, or there is no user with such name');
    }
  });

  app.setErrorHandler(async (error, req, reply) => {
    const err = error as Error;
    const ch = err instanceof ClickHouseError && err.clickhouseCode > 0 ? err : null;
    const fastifyStatus = (err as { statusCode?: number }).statusCode;
    const code = ch ? ch.clickhouseCode : fastifyStatus && fastifyStatus < 500 ? 36 : 1001;
    const status = ch ? httpStatusFor(code) : fastifyStatus ?? 500;
    const text = ch ? err.message : `Code: ${code}. DB::Exception: ${err.message}. (${code === 36 ? 'BAD_ARGUMENTS' : 'STD_EXCEPTION'})`;
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

  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
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
    const plan = planRequest({ urlQuery: search.query, body, search, defaultFormat, readonly });
    const { payload, format, summary } = await execute(pool, database, readonly, plan, insertRowBinary);
    reply.header('X-ClickHouse-Query-Id', queryId(req))
      .header('X-ClickHouse-Format', format)
      .header('X-ClickHouse-Summary', JSON.stringify(summary))
      .header('Content-Type', contentTypeFor(format));
    return compress(req, reply, search, payload);
  };
  app.get('/', { schema: schema('Run a read-only query (ClickHouse HTTP interface)') }, handle);
  app.post('/', { schema: schema('Run a query or insert rows (ClickHouse HTTP interface)') }, handle);
}

type Summary = Record<string, string>;

async function execute(
  pool: SessionPool, database: string, readonly: boolean, plan: Plan, insertRowBinary: ReturnType<typeof createFileInserter> | undefined,
): Promise<{ payload: Buffer; format: string; summary: Summary }> {
  if (plan.kind === 'insert') {
    if (readonly || !insertRowBinary) throw readonlyError();
    const format = plan.format;
    if (format === 'RowBinary') {
      // chdb's raw insert takes text formats only: spooled through a file (file-insert.ts).
      if (!plan.columns?.length) throw engineStyleError(62, 'SYNTAX_ERROR', 'INSERT ... FORMAT RowBinary needs a column list here');
      await pool.run(database, false, (s) => insertRowBinary({ table: plan.table, columns: plan.columns!, data: plan.data, settings: plan.settings },
        (sql) => s.queryAsync(sql, { format: 'TabSeparated' })));
      return { payload: Buffer.alloc(0), format: plan.format, summary: counters({}) };
    }
    const r = await pool.run(database, false, (s) => s.insert({
      table: plan.table, columns: plan.columns, values: plan.data, format, settings: plan.settings,
    }));
    return {
      payload: Buffer.alloc(0),
      format: plan.format,
      summary: counters({ written_rows: r.rowsWritten, written_bytes: r.bytesWritten, elapsed_ns: Math.round(r.elapsed * 1e9) }),
    };
  }
  const r = await pool.run(database, readonly, (s) => (Object.keys(plan.params).length > 0
    // Plain queries run concurrently in chdb; bound ones are serialised process-wide.
    ? s.queryBindAsync(plan.sql, plan.params, { format: plan.format })
    : s.queryAsync(plan.sql, { format: plan.format })));
  const payload = Buffer.from(r.bytes());
  return {
    payload,
    format: responseFormat(plan.sql, plan.format),
    summary: counters({ read_rows: r.rowsRead, read_bytes: r.bytesRead, result_bytes: payload.length, elapsed_ns: Math.round(r.elapsed * 1e9) }),
  };
}

/** X-ClickHouse-Summary carries every counter as a string, as ClickHouse does. */
function counters(values: Record<string, number>): Summary {
  const all: Record<string, number> = { read_rows: 0, read_bytes: 0, written_rows: 0, written_bytes: 0, total_rows_to_read: 0, result_rows: 0, result_bytes: 0, elapsed_ns: 0, ...values };
  return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, String(v)]));
}

async function requestBody(req: FastifyRequest, maxOutputLength: number): Promise<Buffer> {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const encoding = (header(req, 'content-encoding') ?? '').toLowerCase();
  if (raw.length === 0 || encoding === '' || encoding === 'identity') return raw;
  try {
    // maxOutputLength: a small compressed body must not expand into unbounded memory.
    if (encoding === 'gzip') return await gunzip(raw, { maxOutputLength });
    if (encoding === 'deflate') return await inflate(raw, { maxOutputLength });
  } catch (err) {
    throw engineStyleError(36, 'BAD_ARGUMENTS', `Cannot decompress the ${encoding} request body: ${(err as Error).message}`);
  }
  throw engineStyleError(36, 'BAD_ARGUMENTS', `Unsupported Content-Encoding ${encoding}`);
}

async function compress(req: FastifyRequest, reply: FastifyReply, search: Record<string, string>, payload: Buffer): Promise<Buffer> {
  if (search.enable_http_compression !== '1' || payload.length === 0) return payload;
  const accepted = (header(req, 'accept-encoding') ?? '').toLowerCase();
  if (/\bgzip\b/.test(accepted)) {
    reply.header('Content-Encoding', 'gzip');
    return gzip(payload);
  }
  if (/\bdeflate\b/.test(accepted)) {
    reply.header('Content-Encoding', 'deflate');
    return deflate(payload);
  }
  return payload; // identity is always acceptable
}

/** Repeated query-string keys arrive as arrays; like ClickHouse, the first value counts. */
function flatten(q: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(q ?? {})) out[k] = String(Array.isArray(v) ? v[0] : v);
  return out;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const QUERY_IDS = new WeakMap<FastifyRequest, string>();
function queryId(req: FastifyRequest): string {
  let id = QUERY_IDS.get(req);
  if (!id) {
    const given = (req.query as Record<string, unknown> | undefined)?.query_id;
    id = typeof given === 'string' && given !== '' ? given : randomUUID();
    QUERY_IDS.set(req, id);
  }
  return id;
}
