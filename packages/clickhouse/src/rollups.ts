import { sqlFile } from './sql-files.js';
import { clickhouseTime } from './time.js';
import type { ClickHouseEngine } from './types.js';
import { CLEARED_TABLES, VIEW_FED_TABLES, recomputeSql } from './views.js';
import { LOCAL_SUFFIX } from './cluster-ddl.js';
import { storeCluster } from './cluster-store.js';

export interface RollupRebuild {
  /** The partitions of `events` read (toYYYYMM(received_at) values). */
  partitions: number;
  /** Rows of each rebuilt table afterwards. */
  rows: Record<string, number>;
  ms: number;
}

/** The Aggregating/Summing tables among them: several rows of one key until their parts merge. */
const MERGING = new Set<string>(['order_first_purchases', 'event_hour_counts', 'token_hour_sets', 'token_day_sets']);

/** A toYYYYMM value's [first ms, first ms of the next month). */
function monthBounds(partition: number): { from: number; to: number } {
  const year = Math.floor(partition / 100);
  const month = (partition % 100) - 1;
  return { from: Date.UTC(year, month, 1), to: Date.UTC(year, month + 1, 1) };
}

/**
 * Rebuilds every table `events` feeds through a view (clickhouse/README.md, "Rebuilding"): one
 * month of `events` at a time (bounded memory; inserts and reads go on), each view's own SELECT
 * (clickhouse/views/) run again over that month's rows (views.ts, recomputeSql). The tables that
 * would add a row twice lose the month first; for that month the statistics read partial figures
 * for the seconds between the drop and the insert; rows inserted meanwhile go through the views
 * as usual, and a row a view missed (rows written to `events` directly) is added.
 */
export async function rebuildRollups(engine: ClickHouseEngine): Promise<RollupRebuild> {
  const started = performance.now();
  // On a cluster (clickhouse/deploy/README.md) the parts and partitions are the shards' `_local`
  // tables': a Distributed table has no parts and refuses DROP PARTITION (code 48).
  const cluster = await storeCluster(engine);
  const parts = await engine.query<{ partition: number | string }>(
    `SELECT DISTINCT toUInt32(partition) AS partition FROM ${cluster ? `clusterAllReplicas('${cluster}', system.parts)` : 'system.parts'} `
      + `WHERE database = {database:String} AND table = '${cluster ? `events${LOCAL_SUFFIX}` : 'events'}' AND active ORDER BY partition`,
    { database: engine.database },
  );
  const inserts = recomputeSql(sqlFile('verify/scope_events'));
  for (const { partition } of parts) {
    // A toYYYYMM number read from system.parts, written as a literal: an ON CLUSTER statement
    // runs on the other nodes as text, without the caller's parameters.
    const month = Number(partition);
    if (!Number.isInteger(month)) throw new TypeError(`partition ${String(partition)} is not a month`);
    for (const table of CLEARED_TABLES) {
      await engine.command(cluster ? `ALTER TABLE ${table}${LOCAL_SUFFIX} ON CLUSTER ${cluster} DROP PARTITION ${month}` : `ALTER TABLE ${table} DROP PARTITION ${month}`);
    }
    const { from, to } = monthBounds(month);
    const range = { from: clickhouseTime(from), to: clickhouseTime(to) };
    // On a cluster one chatbot at a time: each recomputation reads and writes its chatbot's shard
    // (rows without a chatbot, which no statistic reads, are not recomputed there).
    // (A Set: DISTINCT over the sharding key is left to the shards, optimize_distributed_group_by_sharding_key.)
    const chatbots = cluster
      ? [...new Set((await engine.query<{ chatbot_id: string }>(
        "SELECT DISTINCT chatbot_id FROM events WHERE received_at >= {from:DateTime64(3, 'UTC')} AND received_at < {to:DateTime64(3, 'UTC')} ORDER BY chatbot_id", range)).map((r) => r.chatbot_id))].filter((c) => c !== '')
      : [''];
    for (const chatbotId of chatbots) {
      for (const { sql } of inserts) await engine.command(sql, { chatbot_id: chatbotId, ...range });
    }
  }
  const rows: Record<string, number> = {};
  for (const table of VIEW_FED_TABLES) {
    // FINAL on the tables that merge rows per key: their rows once merged (an order is one row).
    const final = MERGING.has(table) ? ' FINAL' : '';
    const [{ n }] = await engine.query<{ n: string }>(`SELECT count() AS n FROM ${table}${final}`);
    rows[table] = Number(n);
  }
  return { partitions: parts.length, rows, ms: Math.round(performance.now() - started) };
}
