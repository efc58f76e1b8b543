import { engineStyleError } from '../errors.js';
import type { SessionPool } from './sessions.js';
import type { createFileInserter } from '../file-insert.js';
import { readonlyError, responseFormat, type Plan } from './plan.js';

type Summary = Record<string, string>;
export interface Executed { payload: Buffer; format: string; summary: Summary; readRows: number; readBytes: number; resultBytes: number }
const NOTHING_READ = { readRows: 0, readBytes: 0, resultBytes: 0 };

export async function execute(
  pool: SessionPool, owner: string, database: string, readonly: boolean, plan: Plan, insertRowBinary: ReturnType<typeof createFileInserter> | undefined,
  sqlPrefix = '',
): Promise<Executed> {
  if (plan.kind === 'insert') {
    if (readonly || !insertRowBinary) throw readonlyError();
    const format = plan.format;
    if (format === 'RowBinary') {
      // chdb's raw insert takes text formats only: spooled through a file (file-insert.ts).
      if (!plan.columns?.length) throw engineStyleError(62, 'SYNTAX_ERROR', 'INSERT ... FORMAT RowBinary needs a column list here');
      await pool.run(owner, database, false, (s) => insertRowBinary({ table: plan.table, columns: plan.columns!, data: plan.data, settings: plan.settings },
        (sql) => s.queryAsync(sql, { format: 'TabSeparated' })));
      return { payload: Buffer.alloc(0), format: plan.format, summary: counters({}), ...NOTHING_READ };
    }
    const r = await pool.run(owner, database, false, (s) => s.insert({
      table: plan.table, columns: plan.columns, values: plan.data, format, settings: plan.settings,
    }));
    return {
      payload: Buffer.alloc(0),
      format: plan.format,
      summary: counters({ written_rows: r.rowsWritten, written_bytes: r.bytesWritten, elapsed_ns: Math.round(r.elapsed * 1e9) }),
      ...NOTHING_READ,
    };
  }
  const sql = sqlPrefix + plan.sql;
  const r = await pool.run(owner, database, readonly, (s) => (Object.keys(plan.params).length > 0
    // Plain queries run concurrently in chdb; bound ones are serialised process-wide.
    ? s.queryBindAsync(sql, plan.params, { format: plan.format })
    : s.queryAsync(sql, { format: plan.format })));
  const payload = Buffer.from(r.bytes());
  return {
    payload,
    format: responseFormat(plan.sql, plan.format),
    summary: counters({ read_rows: r.rowsRead, read_bytes: r.bytesRead, result_bytes: payload.length, elapsed_ns: Math.round(r.elapsed * 1e9) }),
    readRows: r.rowsRead,
    readBytes: r.bytesRead,
    resultBytes: payload.length,
  };
}

/** X-ClickHouse-Summary carries every counter as a string, as ClickHouse does. */
function counters(values: Record<string, number>): Summary {
  const all: Record<string, number> = { read_rows: 0, read_bytes: 0, written_rows: 0, written_bytes: 0, total_rows_to_read: 0, result_rows: 0, result_bytes: 0, elapsed_ns: 0, ...values };
  return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, String(v)]));
}

