import { mkdirSync } from 'node:fs';
import { Session } from 'chdb';
import type { Logger } from '@chatlytics/core';
import type { ClickHouseEngine, InsertOptions, QueryParams } from './types.js';
import { closed, queryFailed, unavailable } from './errors.js';
import { assertColumns, assertDatabase, assertTable } from './identifiers.js';
import { parseJsonEachRow, toJsonEachRow } from './json-each-row.js';
import { createFileInserter } from './file-insert.js';
import { inlineParams } from './inline-params.js';
import path from 'node:path';

export interface ChdbEngineOptions {
  /** Data directory of the embedded engine (DATA_DIR/clickhouse). One per process: a chdb limit. */
  path: string;
  database: string;
  log: Logger;
  /** Extra `clickhouse local` arguments, e.g. ['--readonly=1']. */
  connectionArgs?: readonly string[];
  /**
   * Native connections to the one in-process engine (default 2): queries on different
   * connections run in parallel, queries on one connection one after another.
   */
  connections?: number;
}

/**
 * Settings a ClickHouse server has by default but `clickhouse local` (chdb) does not.
 * Without the first, count() would be a JS number here and a string from a server,
 * and code written against one engine would break on the other.
 */
export const SERVER_LIKE_ARGS = ['--output_format_json_quote_64bit_integers=1'] as const;

/**
 * The engine's own server settings (the first Session of a process sets them for all):
 * background merges and mutations run at `nice` 19, so that on a busy machine the queries go
 * first and a mutation (an erasure, a retention run, a repair) takes the CPU the statistics
 * leave; on an idle machine they run at full speed. A server gets the same from
 * clickhouse/deploy/config.d/priorities.xml. ClickHouse applies it only in a process with
 * CAP_SYS_NICE (root, or the capability given); elsewhere it does nothing.
 */
export const ENGINE_SERVER_ARGS = ['--os_threads_nice_value_merge_mutate=19'] as const;

/** Maps anything chdb throws to our coded error, keeping ClickHouse's code and text. */
export function fromChdbError(err: unknown): Error {
  const e = err as { clickhouseCode?: number; message?: string; code?: string };
  if (typeof e?.clickhouseCode === 'number' && e.clickhouseCode > 0) return queryFailed(e.clickhouseCode, e.message ?? 'ClickHouse error', err);
  if (e?.code === 'CHDB_CLOSED') return closed();
  return unavailable(`chdb failed: ${e?.message ?? String(err)}`, err);
}

/**
 * The embedded engine: a few chdb Sessions (native connections) on the data directory, each
 * with `USE database`. A query goes to the connection with the fewest queries in flight, its
 * parameters written into the text (inline-params.ts), so that the statistics of one page run
 * side by side instead of in a queue.
 */
export async function createChdbEngine(opts: ChdbEngineOptions): Promise<ClickHouseEngine> {
  const database = assertDatabase(opts.database);
  mkdirSync(opts.path, { recursive: true });
  const count = Math.max(1, Math.floor(opts.connections ?? 2));
  const args = [...SERVER_LIKE_ARGS, ...ENGINE_SERVER_ARGS, ...(opts.connectionArgs ?? [])];
  const pool: { session: Session; busy: number }[] = [];
  const log = opts.log.child({ component: 'clickhouse', engine: 'chdb' });
  // close() waits for these so a native connection is never destroyed under a running query.
  const inFlight = new Set<Promise<unknown>>();
  let isClosed = false;

  const run = async <T>(fn: (session: Session) => Promise<T>): Promise<T> => {
    if (isClosed) throw closed();
    const conn = pool.reduce((a, b) => (b.busy < a.busy ? b : a));
    conn.busy++;
    const p = fn(conn.session);
    inFlight.add(p);
    try {
      return await p;
    } catch (err) {
      throw fromChdbError(err);
    } finally {
      conn.busy--;
      inFlight.delete(p);
    }
  };
  // chdb runs bound queries one at a time per process, plain ones concurrently: bind only
  // what cannot be written into the text (inlineParams says which).
  const exec = (sql: string, params: QueryParams | undefined, format: string) => {
    const hasParams = params !== undefined && Object.keys(params).length > 0;
    const text = hasParams ? inlineParams(sql, params) : sql;
    return run((session) => (text === undefined
      ? session.queryBindAsync(sql, params!, { format })
      : session.queryAsync(text, { format })));
  };

  try {
    for (let i = 0; i < count; i++) {
      const session = new Session(opts.path, { connectionArgs: args });
      pool.push({ session, busy: 0 });
      if (i === 0) await session.queryAsync(`CREATE DATABASE IF NOT EXISTS ${database}`, { format: 'TabSeparated' });
      // USE is per Session: from here on unqualified table names mean this database.
      await session.queryAsync(`USE ${database}`, { format: 'TabSeparated' });
    }
  } catch (err) {
    for (const { session } of pool) session.close();
    throw fromChdbError(err);
  }
  // Inside the engine's own directory: the same disk, cleaned with it. Plain (unbound)
  // queries run concurrently in chdb, so a spooled insert does not queue behind bound reads.
  const insertRowBinary = createFileInserter(path.join(opts.path, 'insert-spool'));
  const runPlain = (sql: string) => run((session) => session.queryAsync(sql, { format: 'TabSeparated' }));
  log.info({ path: opts.path, database, connections: count }, 'embedded ClickHouse ready');

  return {
    kind: 'embedded',
    database,
    async command(sql, params) {
      await exec(sql, params, 'TabSeparated');
    },
    async query<T>(sql: string, params?: QueryParams) {
      const result = await exec(sql, params, 'JSONEachRow');
      return parseJsonEachRow<T>(result.text());
    },
    async insert(table: string, rows: readonly object[] | Buffer, o: InsertOptions = {}) {
      assertTable(table);
      const values = Buffer.isBuffer(rows) ? rows : toJsonEachRow(rows);
      if (values.length === 0 || (!Buffer.isBuffer(rows) && rows.length === 0)) return;
      const settings: Record<string, string | number | boolean> = { ...(o.settings ?? {}) };
      if (o.dedupToken) settings.insert_deduplication_token = o.dedupToken;
      const format = Buffer.isBuffer(rows) ? o.format ?? 'JSONEachRow' : 'JSONEachRow';
      if (format !== 'JSONEachRow' && !o.columns) throw new TypeError(`insert: ${format} needs a column list`);
      if (o.columns) assertColumns(o.columns);
      if (format === 'RowBinary') {
        await insertRowBinary({ table, columns: o.columns!, data: values, settings }, runPlain);
        return;
      }
      await run((session) => session.insert({ table, values, format, columns: o.columns, settings }));
    },
    async ping() {
      try {
        await exec('SELECT 1', undefined, 'TabSeparated');
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (isClosed) return;
      isClosed = true;
      await Promise.allSettled([...inFlight]);
      for (const { session } of pool) session.close();
      log.info({ path: opts.path }, 'embedded ClickHouse closed');
    },
  };
}
