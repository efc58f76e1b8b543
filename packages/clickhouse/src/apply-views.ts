import type { ClickHouseEngine } from './types.js';
import type { RenderedStatement, Renderer } from './cluster-ddl.js';
import { migrationError } from './errors.js';
import { VIEWS, viewChecksum, viewDdl } from './views.js';

/**
 * After the numbered migrations, every view of clickhouse/views/ is made to be its file: a view
 * whose file changed since the ledger (`schema_views`) recorded it, or that is missing, is created
 * or given its new query (views.ts, viewDdl). A changed view is one file and no migration; a
 * rolling deploy swaps its query with MODIFY QUERY, never dropping it while writers insert.
 */
export interface RenderedView {
  view: string;
  checksum: string;
  statements: RenderedStatement[];
}

/** The ledger: ReplacingMergeTree by name, the latest record of a view wins (as schema_migrations, one table for the whole cluster). */
export function viewLedgerDdl(cluster?: string): string {
  const engine = cluster
    ? `ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/schema_views', '{shard}-{replica}', applied_at)`
    : 'ReplacingMergeTree(applied_at)';
  return `CREATE TABLE IF NOT EXISTS schema_views${cluster ? ` ON CLUSTER ${cluster}` : ''} (name String, checksum String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)) ENGINE = ${engine} ORDER BY name`;
}

/** Every view's statements, rendered by the renderer that rendered the migrations (it knows which tables are sharded). */
export function renderViews(renderer: Renderer): RenderedView[] {
  return VIEWS.map((v) => ({ view: v.name, checksum: viewChecksum(v), statements: viewDdl(v).flatMap((sql) => renderer.render(sql)) }));
}

/** Applies the views whose file changed or that are missing; resolves with their names. */
export async function applyViews(engine: ClickHouseEngine, views: readonly RenderedView[], cluster?: string): Promise<string[]> {
  await engine.command(viewLedgerDdl(cluster));
  const recorded = new Map((await engine.query<{ name: string; checksum: string }>(
    'SELECT name, argMax(checksum, applied_at) AS checksum FROM schema_views GROUP BY name',
  )).map((r) => [r.name, r.checksum]));
  const present = new Set((await engine.query<{ name: string }>(
    'SELECT name FROM system.tables WHERE database = {database:String}', { database: engine.database },
  )).map((r) => r.name));
  const applied: string[] = [];
  for (const v of views) {
    if (recorded.get(v.view) === v.checksum && present.has(v.view)) continue;
    for (const [i, stmt] of v.statements.entries()) {
      if (stmt.skipped) continue;
      try {
        await engine.command(stmt.sql);
      } catch (err) {
        throw migrationError(`View ${v.view} (clickhouse/views/${v.view}.sql) failed at statement ${i + 1}: ${(err as Error).message}`, err);
      }
    }
    await engine.insert('schema_views', [{ name: v.view, checksum: v.checksum }]);
    applied.push(v.view);
  }
  return applied;
}
