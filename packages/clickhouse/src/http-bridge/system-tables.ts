import { engineStyleError } from '../errors.js';
import { walk, type AstNode } from './ast-dump.js';

/**
 * Which of the engine's own tables a data-team query may read. The embedded engine cannot keep
 * its file paths, other keys' queries or its logs from a read-only session, so the check does:
 * `system` tables are refused unless listed here, and the two listed ones that carry paths
 * (`tables`, `databases`) may be read only by naming columns other than those paths.
 * `information_schema` (the same catalogue without paths) stays open, as do the data tables.
 */
const OPEN_SYSTEM_TABLES = new Set([
  'one', 'numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'columns', 'functions', 'table_functions', 'formats',
  'data_type_families', 'table_engines', 'database_engines', 'aggregate_function_combinators', 'collations', 'time_zones',
  'settings', 'merge_tree_settings', 'keywords', 'completions', 'contributors', 'licenses', 'events', 'metrics',
  'asynchronous_metrics', 'tables', 'databases',
]);

/** Open system tables with columns that name the data directory. */
const PATH_COLUMNS: Record<string, readonly string[]> = {
  tables: ['data_paths', 'metadata_path'],
  databases: ['data_path', 'metadata_path'],
};

const MATCHERS = new Set(['Asterisk', 'QualifiedAsterisk', 'ColumnsRegexpMatcher', 'ColumnsListMatcher',
  'QualifiedColumnsRegexpMatcher', 'QualifiedColumnsListMatcher']);

const denied = (what: string) =>
  engineStyleError(497, 'ACCESS_DENIED', `${what} (the data team's SQL interface does not show the engine's files, logs or other queries)`);

/** `TableIdentifier db.name (alias a)` (or an IN's `Identifier db.name`) → [db, name]; an unqualified name is in `database`. */
function tableOf(node: AstNode, database: string): [string, string] {
  const name = /^ (\S+)/.exec(node.details)?.[1] ?? '';
  const dot = name.indexOf('.');
  return dot < 0 ? [database, name] : [name.slice(0, dot), name.slice(dot + 1)];
}

/** `x IN t`: the right side of these may name a table, which then appears as a plain Identifier. */
const IN_FUNCTIONS = new Set(['in', 'notin', 'globalin', 'globalnotin', 'nullin', 'notnullin', 'globalnullin', 'globalnotnullin']);

/** The tables a tree reads: FROM/JOIN (TableIdentifier) and the right side of an IN. */
function* tableReferences(root: AstNode): Generator<AstNode> {
  for (const node of walk(root)) {
    if (node.type === 'TableIdentifier') yield node;
    else if (node.type === 'Function' && IN_FUNCTIONS.has((/^ (\S+)/.exec(node.details)?.[1] ?? '').toLowerCase())) {
      const right = node.children[0]?.children[1];
      if (right?.type === 'Identifier') yield right;
    }
  }
}

export function checkTables(root: AstNode, database: string): void {
  const hidden = new Set<string>();
  for (const node of tableReferences(root)) {
    const [db, table] = tableOf(node, database);
    if (db !== 'system') continue;
    if (!OPEN_SYSTEM_TABLES.has(table)) throw denied(`system.${table} is not readable here; open: system.${[...OPEN_SYSTEM_TABLES].join(', system.')} and information_schema`);
    for (const column of PATH_COLUMNS[table] ?? []) hidden.add(column);
  }
  if (hidden.size === 0) return;
  for (const node of walk(root)) {
    if (MATCHERS.has(node.type)) throw denied('* and COLUMNS(…) are not allowed with system.tables or system.databases here; name the columns');
    if (node.type !== 'Identifier') continue;
    const parts = (/^ (\S+)/.exec(node.details)?.[1] ?? '').split('.');
    const column = parts.find((p) => hidden.has(p));
    if (column) throw denied(`Column ${column} is not readable here`);
  }
}
