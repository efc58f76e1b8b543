import { LOCAL_SUFFIX } from './cluster-ddl.js';
import type { ClickHouseEngine } from './types.js';

/**
 * What a maintenance job (verify, its repair, the rebuild) must know of a store rendered for a
 * cluster (clickhouse/deploy/README.md): the tables the queries name are Distributed, which
 * hold no parts (system.parts has no row of them) and refuse `DROP PARTITION` (code 48) and
 * lightweight `DELETE`; their rows are in `<table>_local` on every shard. The store says which
 * form it has: `events` is a Distributed table of the cluster, or it is not.
 */
export async function storeCluster(engine: ClickHouseEngine): Promise<string | undefined> {
  const [row] = await engine.query<{ engine: string; engine_full: string }>(
    "SELECT engine, engine_full FROM system.tables WHERE database = {database:String} AND name = 'events'", { database: engine.database });
  if (row?.engine !== 'Distributed') return undefined;
  return /^Distributed\(\s*'?([A-Za-z_][A-Za-z0-9_]*)'?/.exec(row.engine_full)?.[1];
}

/** `DELETE FROM t …` as it runs on every shard: `DELETE FROM t_local ON CLUSTER c …` (each node deletes its own rows). */
export function deleteOnShards(sql: string, cluster: string | undefined): string {
  if (!cluster) return sql;
  return sql.replace(/^(\s*(?:--[^\n]*\n\s*)*DELETE\s+FROM\s+)([A-Za-z_][A-Za-z0-9_]*)\b/i, `$1$2${LOCAL_SUFFIX} ON CLUSTER ${cluster}`);
}

/** The chatbots whose rows or aggregates a job over every chatbot visits one at a time on a cluster (each read asks one shard). */
export async function storedChatbots(engine: ClickHouseEngine, tables: readonly string[]): Promise<string[]> {
  const union = ['events', 'token_ids', ...tables].map((t) => `SELECT DISTINCT chatbot_id FROM ${t}`).join(' UNION DISTINCT ');
  // A Set: DISTINCT over the sharding key is left to each shard (optimize_distributed_group_by_sharding_key).
  return [...new Set((await engine.query<{ chatbot_id: string }>(`SELECT chatbot_id FROM (${union}) ORDER BY chatbot_id`)).map((r) => r.chatbot_id))];
}
