import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createClient, ClickHouseError as ClientError, type ClickHouseClient } from '@clickhouse/client';
import type { Logger } from '@chatlytics/core';
import type { ClickHouseEngine, InsertOptions, QueryParams } from './types.js';
import { closed, queryFailed, unavailable } from './errors.js';
import { assertColumns, assertDatabase, assertTable } from './identifiers.js';

export interface ServerEngineOptions {
  url: string;
  user: string;
  password: string;
  database: string;
  /** Path prefix of the HTTP interface, e.g. '/clickhouse' for our bridge. */
  pathname?: string;
  log: Logger;
  requestTimeoutMs?: number;
}

/** Client errors carry ClickHouse's code as a string; transport failures carry none. */
function fromClientError(err: unknown): Error {
  if (err instanceof ClientError) {
    const code = Number(err.code);
    return queryFailed(Number.isFinite(code) ? code : 0, `Code: ${err.code}. DB::Exception: ${err.message.trim()} (${err.type ?? 'UNKNOWN'})`, err);
  }
  const e = err as { code?: string; message?: string };
  const message = e?.message ?? String(err);
  // Transport trouble may pass; anything else (a client-side validation error) will not.
  if (TRANSPORT_CODES.has(e?.code ?? '') || /timeout|socket hang up|ECONN/i.test(message)) {
    return unavailable(`ClickHouse request failed: ${message}`, err);
  }
  return queryFailed(0, `ClickHouse client error: ${message}`, err);
}

const TRANSPORT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN', 'EHOSTUNREACH']);

/** Maps the client's log lines onto ours; its errors are rethrown to callers, who log them. */
function loggerClass(log: Logger) {
  return class {
    trace() {}
    debug({ message, args }: { message: string; args?: Record<string, unknown> }) { log.debug({ ...args }, message); }
    info({ message, args }: { message: string; args?: Record<string, unknown> }) { log.info({ ...args }, message); }
    warn({ message, args }: { message: string; args?: Record<string, unknown> }) { log.warn({ ...args }, message); }
    error({ message, args, err }: { message: string; args?: Record<string, unknown>; err: Error }) { log.debug({ ...args, err }, message); }
  };
}

/** The production engine: `@clickhouse/client` over HTTP, same SQL and {name:Type} parameters. */
export async function createServerEngine(opts: ServerEngineOptions): Promise<ClickHouseEngine> {
  const database = assertDatabase(opts.database);
  const log = opts.log.child({ component: 'clickhouse', engine: 'server' });
  const base = {
    url: opts.url,
    username: opts.user,
    password: opts.password,
    pathname: opts.pathname,
    // 30 s (the client default) is right for analytics reads; batch inserts are far faster.
    request_timeout: opts.requestTimeoutMs ?? 30_000,
    application: 'chatlytics',
    log: { LoggerClass: loggerClass(log) },
  };
  // The database may not exist yet, and a client bound to it would fail every request
  // (code 81), so the first statement runs on a client without a database.
  const bootstrap = createClient(base);
  try {
    await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  } catch (err) {
    throw fromClientError(err);
  } finally {
    await bootstrap.close();
  }
  const client: ClickHouseClient = createClient({ ...base, database });
  let isClosed = false;
  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (isClosed) throw closed();
    try {
      return await fn();
    } catch (err) {
      throw fromClientError(err);
    }
  };
  log.info({ url: opts.url, pathname: opts.pathname, database }, 'ClickHouse server client ready');

  return {
    kind: 'server',
    database,
    async command(sql: string, params?: QueryParams) {
      await guard(() => client.command({ query: sql, query_params: params }));
    },
    async query<T>(sql: string, params?: QueryParams) {
      return guard(async () => {
        const rs = await client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
        return rs.json<T>();
      });
    },
    async insert(table: string, rows: readonly object[] | Buffer, o: InsertOptions = {}) {
      assertTable(table);
      if (rows.length === 0) return;
      const clickhouse_settings: Record<string, string | number | boolean> = { ...(o.settings ?? {}) };
      if (o.dedupToken) clickhouse_settings.insert_deduplication_token = o.dedupToken;
      if (!Buffer.isBuffer(rows)) {
        await guard(() => client.insert({ table, values: [...rows], format: 'JSONEachRow', clickhouse_settings }));
        return;
      }
      const format = o.format ?? 'JSONEachRow';
      if (format !== 'JSONEachRow' && !o.columns) throw new TypeError(`insert: ${format} needs a column list`);
      const columns = o.columns ? ` (${assertColumns(o.columns)})` : '';
      // insert() wants objects for JSON formats; exec() sends a prepared buffer as the body untouched.
      await guard(async () => {
        const r = await client.exec({
          query: `INSERT INTO ${table}${columns} FORMAT ${format}`,
          values: Readable.from([rows], { objectMode: false }),
          clickhouse_settings,
        });
        r.stream.resume();
        await finished(r.stream);
      });
    },
    async ping() {
      if (isClosed) return false;
      const r = await client.ping();
      return r.success;
    },
    async close() {
      if (isClosed) return;
      isClosed = true;
      await client.close();
      log.info({}, 'ClickHouse server client closed');
    },
  };
}
