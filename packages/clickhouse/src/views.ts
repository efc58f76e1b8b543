import { createHash } from 'node:crypto';
import { sqlFileError } from './errors.js';
import { sqlFile } from './sql-files.js';

/**
 * The materialized views, each defined once: clickhouse/views/<name>.sql holds its SELECT (query
 * fragments included, as in a query file). The same text makes the view (applyViews, after the
 * migrations), recomputes its table from stored rows (recomputeSql: the rebuild and the repair)
 * and is what `verify` compares its table with (verify/*.sql include `views/<name>`).
 */
export interface ViewDefinition {
  /** The view's name and its file's (clickhouse/views/<name>.sql). */
  name: string;
  /** The table whose inserts the view sees. */
  from: string;
  /** The table it inserts into. */
  to: string;
  /**
   * How its table is computed again for a time range of `from`'s rows: 'cleared' (the range's
   * rows are deleted first: counts and copies would be added twice), 'minimum' (the table keeps a
   * minimum per key: inserting a row again changes nothing), 'cascade' (filled by the view on a
   * recomputed table), or absent (not an aggregate: never recomputed).
   */
  recompute?: 'cleared' | 'minimum' | 'cascade';
}

export const VIEWS: readonly ViewDefinition[] = [
  { name: 'events_input_v2_mv', from: 'events_input_v2', to: 'events' },
  { name: 'order_first_purchases_mv', from: 'events', to: 'order_first_purchases', recompute: 'minimum' },
  { name: 'token_hour_sets_mv', from: 'events', to: 'token_hour_sets', recompute: 'cleared' },
  { name: 'token_day_sets_mv', from: 'token_hour_sets', to: 'token_day_sets', recompute: 'cascade' },
  { name: 'event_hour_counts_mv', from: 'events', to: 'event_hour_counts', recompute: 'cleared' },
  { name: 'event_copies_mv', from: 'events', to: 'event_copies', recompute: 'cleared' },
  { name: 'purchases_mv', from: 'events', to: 'purchases', recompute: 'cleared' },
  { name: 'conversation_starts_mv', from: 'events', to: 'conversation_starts', recompute: 'cleared' },
  { name: 'chat_clicks_mv', from: 'events', to: 'chat_clicks', recompute: 'cleared' },
];

/** Every table `events` feeds through a view, directly or through another view's table. */
export const VIEW_FED_TABLES: readonly string[] = VIEWS.filter((v) => v.recompute).map((v) => v.to);
/** The tables a recomputation empties (for the range) before inserting. */
export const CLEARED_TABLES: readonly string[] = VIEWS.filter((v) => v.recompute === 'cleared' || v.recompute === 'cascade').map((v) => v.to);
/** The views a recomputation runs, over `events`, in order (a cascade follows its source's insert). */
const RECOMPUTED = VIEWS.filter((v) => v.from === 'events' && v.recompute);

/** The view's SELECT, fragments included. */
export function viewSelect(view: ViewDefinition): string {
  // Without the file's leading comment: documentation, not part of what the view does.
  return sqlFile(`views/${view.name}`).replace(/^(?:[ \t]*(?:--[^\n]*)?\n)*/, '');
}

/** A digest of what the view does: the ledger records it, so a changed file is applied once. */
export function viewChecksum(view: ViewDefinition): string {
  return createHash('sha256').update(`${view.from}\n${view.to}\n${viewSelect(view)}`).digest('hex');
}

/**
 * The statements that make the view be its file: created if missing, its query replaced if it
 * exists (MODIFY QUERY swaps it atomically: no insert meanwhile goes unseen).
 */
export function viewDdl(view: ViewDefinition): string[] {
  const select = viewSelect(view);
  return [
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${view.name} TO ${view.to} AS\n${select}`,
    `ALTER TABLE ${view.name} MODIFY QUERY\n${select}`,
  ];
}

/**
 * The INSERTs that compute every view-fed table again for the rows of `events` that `scope` (a
 * SELECT over `events`) returns: each view's own SELECT, read over the scope. `events` in the
 * view's text is the scope: a WITH of that name hides the table, whose name inside the scope
 * itself still means the table.
 */
export function recomputeSql(scope: string): { table: string; sql: string }[] {
  return RECOMPUTED.map((v) => {
    const select = viewSelect(v);
    // A second WITH cannot follow ours: such a view would need its scope written into its own WITH.
    if (/^\s*WITH\b/i.test(select)) throw sqlFileError(`View ${v.name} starts with WITH: it cannot be recomputed over a scope`);
    return { table: v.to, sql: `INSERT INTO ${v.to}\nWITH events AS (\n${scope}\n)\n${select}` };
  });
}
