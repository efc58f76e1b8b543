import { LOCAL_SUFFIX } from './cluster-ddl.js';
import { rendererAfterMigrations } from './migrations.js';
import { paramsPerMonth } from './month-by-month.js';
import { pacedCommand } from './paced.js';
import { splitStatements } from './sql-split.js';
import { sqlFile } from './sql-files.js';
import { clickhouseTime } from './time.js';
import type { ClickHouseEngine } from './types.js';

export interface RetentionRun {
  /** Whether anything was older than the horizon (else nothing was touched). */
  deleted: boolean;
  /** Token ids whose mapping went with the token's last rows. */
  tokens: number;
}

const TOKENS_PER_MUTATION = 10_000;

/**
 * A chatbot's raw rows received before `cutoff` (a UTC midnight, ms) deleted
 * (privacy/retention_delete.sql), then the id mappings of the tokens left without rows, then the
 * horizon recorded for `cli verify` (README.md, "Personal data"). Can run again at any time.
 */
export async function applyRetention(
  engine: ClickHouseEngine, chatbotId: string, cutoff: number, opts: { cluster?: string; pace?: number } = {},
): Promise<RetentionRun> {
  const command = pacedCommand(engine, opts.pace);
  const p = { chatbot_id: chatbotId, cutoff: clickhouseTime(cutoff) };
  const [{ months }] = await engine.query<{ months: (number | string)[] }>(sqlFile('privacy/retention_months'), p);
  const [{ recorded }] = await engine.query<{ recorded: number | string }>(
    "SELECT count() AS recorded FROM retention_cutoffs WHERE chatbot_id = {chatbot_id:String} AND cutoff >= toDate({cutoff:DateTime64(3, 'UTC')})", p);
  // Nothing older and the horizon recorded (a run that failed half-way has not): nothing to do.
  if (months.length === 0 && Number(recorded) > 0) return { deleted: false, tokens: 0 };
  const render = rendererAfterMigrations({ cluster: opts.cluster, database: engine.database });
  const run = async (sql: string, params: Record<string, unknown>) => {
    for (const r of render(sql)) if (!r.skipped) await command(r.sql, params);
  };
  for (const statement of splitStatements(sqlFile('privacy/retention_delete'))) {
    for (const params of paramsPerMonth(statement, p, months)) await run(statement, params);
  }
  const tokens = (await engine.query<{ token: string }>(sqlFile('privacy/retention_expired_tokens'), p)).map((r) => r.token);
  for (let i = 0; i < tokens.length; i += TOKENS_PER_MUTATION) {
    const chunk = { chatbot_id: chatbotId, tokens: tokens.slice(i, i + TOKENS_PER_MUTATION) };
    await run('ALTER TABLE token_ids DELETE WHERE chatbot_id = {chatbot_id:String} AND token IN {tokens:Array(String)} SETTINGS mutations_sync = 2', chunk);
    // Their orders stay (the shop's books) without the id (migration 0200): a visitor who comes back gets a new one.
    await run('ALTER TABLE orders UPDATE token_id = 0 WHERE chatbot_id = {chatbot_id:String} AND token IN {tokens:Array(String)} AND token_id != 0 SETTINGS mutations_sync = 2', chunk);
  }
  await engine.insert('retention_cutoffs', [{ chatbot_id: chatbotId, cutoff: clickhouseTime(cutoff).slice(0, 10) }]);
  return { deleted: true, tokens: tokens.length };
}

/**
 * The rows of `events` erasures masked (privacy/erase_token.sql), removed from the disk
 * (privacy/purge_deleted_rows.sql) when a part of it holds a mask; resolves with the number of
 * such parts (0: nothing was rewritten). `cluster`: CLICKHOUSE_CLUSTER, whose `_local` parts on
 * every node are looked at and rewritten.
 */
export async function purgeDeletedRows(engine: ClickHouseEngine, opts: { cluster?: string } = {}): Promise<number> {
  // The cluster's name comes from the configuration and is checked there; system.parts of every node.
  const parts = opts.cluster ? `clusterAllReplicas('${opts.cluster}', system.parts)` : 'system.parts';
  const [{ masked }] = await engine.query<{ masked: string }>(
    `SELECT count() AS masked FROM ${parts} WHERE database = {database:String} AND table = {table:String} AND active AND has_lightweight_delete`,
    { database: engine.database, table: opts.cluster ? `events${LOCAL_SUFFIX}` : 'events' });
  if (Number(masked) === 0) return 0;
  const render = rendererAfterMigrations({ cluster: opts.cluster, database: engine.database });
  for (const statement of splitStatements(sqlFile('privacy/purge_deleted_rows'))) {
    for (const r of render(statement)) if (!r.skipped) await engine.command(r.sql);
  }
  return Number(masked);
}
