import { engineStyleError } from '../errors.js';
import { functionName, parseAstDump, walk, type AstNode } from './ast-dump.js';
import { checkTables } from './system-tables.js';
import type { Statement } from './statement.js';

/**
 * What a query on a read-only session may contain, decided on the engine's own parse of its
 * canonical text (statement.ts, then `EXPLAIN AST` of that text) before it runs. `readonly=1` is not enough on the embedded engine: like
 * clickhouse-local it still writes `INTO OUTFILE` and evaluates the scalar `file()`, and its
 * `user_files_path` does not confine `file()` (relative paths resolve against the process's
 * working directory, absolute ones anywhere). So the tree is checked positively: a known
 * statement at the root, only node types whose dump shows everything they do, table
 * functions from a short list, and no function that reaches files, dictionaries or other
 * servers anywhere. Whatever spelling, case, quoting, comments or nesting the text uses, the
 * engine has already resolved it into this tree.
 */

/** Table functions a data-team query may read: generated rows and inline data, nothing outside. */
export const ALLOWED_TABLE_FUNCTIONS = [
  'numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'generateSeries', 'generate_series', 'primes', 'generateRandom',
  'values', 'SQLStandardValues', 'format', 'null', 'view',
] as const;
const ALLOWED_TABLE = new Set(ALLOWED_TABLE_FUNCTIONS.map((n) => n.toLowerCase()));

/**
 * Scalar functions that read files, dictionaries (whose sources may be files or servers) or other
 * servers, or tell where the engine keeps its files (getServerSetting('path')).
 */
const IO_FUNCTIONS = new Set(['file', 'hascolumnintable', 'catboostevaluate', 'naivebayesclassifier', 'getserversetting']);
const isDictionaryFunction = (lower: string) => lower.startsWith('dict');

/** Node types whose dump shows all they do (children included). APPLY(f) hides its function: not here. */
const NODE_TYPES = new Set([
  'SelectWithUnionQuery', 'SelectIntersectExceptQuery', 'SelectQuery', 'ExpressionList', 'Function', 'Identifier', 'Literal',
  'Asterisk', 'QualifiedAsterisk', 'ColumnsRegexpMatcher', 'ColumnsListMatcher', 'QualifiedColumnsRegexpMatcher',
  'QualifiedColumnsListMatcher', 'ColumnsTransformerList', 'ColumnsExceptTransformer', 'ColumnsReplaceTransformer',
  'ColumnsReplaceTransformer::Replacement', 'TablesInSelectQuery', 'TablesInSelectQueryElement', 'TableExpression',
  'TableIdentifier', 'TableJoin', 'ArrayJoin', 'Subquery', 'OrderByElement', 'WithElement', 'Set', 'WindowDefinition',
  'WindowListElement', 'InterpolateElement', 'SampleRatio', 'DataType', 'ColumnDeclaration',
  'DescribeQuery', 'ExistsTableQuery', 'ExistsDatabaseQuery', 'ExistsViewQuery', 'ExistsDictionaryQuery',
  'ShowCreateTableQuery', 'ShowCreateDatabaseQuery', 'ShowCreateViewQuery', 'ShowCreateDictionaryQuery', 'ShowTables', 'Explain',
]);

/** Statements a read may be: what the root of its tree is. */
const ROOTS = new Set(['SelectWithUnionQuery', 'DescribeQuery', 'ExistsTableQuery', 'ExistsDatabaseQuery', 'ExistsViewQuery',
  'ExistsDictionaryQuery', 'ShowCreateTableQuery', 'ShowCreateDatabaseQuery', 'ShowCreateViewQuery', 'ShowCreateDictionaryQuery',
  'ShowTables', 'Explain']);
const EXPLAIN_KINDS = new Set(['EXPLAIN', 'EXPLAIN AST', 'EXPLAIN SYNTAX', 'EXPLAIN QUERY TREE', 'EXPLAIN PLAN', 'EXPLAIN PIPELINE', 'EXPLAIN ESTIMATE']);

/**
 * `ShowTables` is the one root whose dump leaves clauses out (WHERE, LIMIT, INTO OUTFILE), so
 * its text must be one of these forms, which have no expression at all.
 */
const IDENT = '(?:[A-Za-z_][A-Za-z0-9_]*|`[A-Za-z0-9_]+`)';
const SHOW_TABLES = new RegExp(`^SHOW\\s+(?:DATABASES|(?:FULL\\s+)?TABLES(?:\\s+(?:FROM|IN)\\s+${IDENT})?)`
  + `(?:\\s+(?:NOT\\s+)?I?LIKE\\s+'[^'\\\\]*')?(?:\\s+FORMAT\\s+${IDENT})?$`, 'i');

export const denied = (what: string) => engineStyleError(497, 'ACCESS_DENIED', `${what} (the data team's SQL interface reads tables only: no files, no other servers)`);

/**
 * Throws ACCESS_DENIED (497) unless the tree is a read this interface allows. `sql` is the
 * engine's canonical text of the same statement; `database` the one unqualified names are in.
 */
export function checkTree(root: AstNode | null, sql: string, tableFunctions: ReadonlySet<string>, database: string): void {
  if (!root) throw denied('This query cannot be checked');
  if (!ROOTS.has(root.type)) throw denied(`${root.type} is not allowed here; send SELECT, DESCRIBE, EXISTS, SHOW TABLES/DATABASES/CREATE or EXPLAIN of a SELECT`);
  if (root.type === 'ShowTables' && !SHOW_TABLES.test(sql.trim())) {
    throw denied('Only SHOW DATABASES and SHOW TABLES [FROM db] [LIKE \'pattern\'] are allowed here; query system.tables for more');
  }
  if (root.type === 'Explain') checkExplain(root);
  for (const node of walk(root)) {
    if (!NODE_TYPES.has(node.type)) throw denied(`${node.type} is not allowed here`);
    // Below the root only the output options are literals; below a nested union they would be
    // an EXPLAIN's inner INTO OUTFILE (the parser allows output options nowhere else).
    if (node.type === 'Literal' && node.depth === 1) throw denied('INTO OUTFILE is not allowed here');
    if (node.type === 'SelectWithUnionQuery' && node !== root && node.declaredChildren > 1) {
      throw denied('INTO OUTFILE, FORMAT or SETTINGS of an inner query are not allowed here');
    }
    if (node.type === 'Function') checkFunction(node, tableFunctions);
  }
  checkTables(root, database);
}

function checkExplain(root: AstNode): void {
  const kind = root.details.replace(/ \(children \d+\)$/, '').trim();
  if (!EXPLAIN_KINDS.has(kind)) throw denied(`${kind || 'This EXPLAIN'} is not allowed here`);
  for (const child of root.children) {
    if (child.type !== 'SelectWithUnionQuery' && child.type !== 'Set' && child.type !== 'Literal') throw denied(`EXPLAIN of ${child.type} is not allowed here`);
  }
}

function checkFunction(node: AstNode, tableFunctions: ReadonlySet<string>): void {
  const name = functionName(node);
  const lower = name.toLowerCase();
  if (node.parent?.type === 'TableExpression') {
    if (!ALLOWED_TABLE.has(lower)) throw denied(`Table function ${name} is not allowed here; allowed: ${ALLOWED_TABLE_FUNCTIONS.join(', ')}`);
    return;
  }
  // A table function's name anywhere else (`x IN file(…)`, a scalar of the same name) too.
  if (IO_FUNCTIONS.has(lower) || isDictionaryFunction(lower) || (tableFunctions.has(lower) && !ALLOWED_TABLE.has(lower))) {
    throw denied(`Function ${name} is not allowed here`);
  }
}

export interface SandboxOptions {
  /** Runs a statement on a read-only session of its own, with the request's parameters; returns its TSVRaw text. */
  run: (sql: string, params: Record<string, unknown>) => Promise<string>;
}

const PREFIX = 'EXPLAIN AST ';
/** Verdicts kept, by canonical text, database and the values of `Identifier` parameters. */
const VERDICTS = 1000;

/**
 * The check as the plugin calls it, on a statement the engine has already parsed and printed
 * (statement.ts): `EXPLAIN AST` of that canonical text (with the query's parameters, since
 * substitution happens while parsing), then `checkTree`. The canonical text is one statement
 * by construction, so the EXPLAIN runs nothing else. The engine's table functions are read
 * once, so a newer engine's additions are refused as scalars too. A text's verdict depends on
 * nothing else, so allowed ones are remembered (refusals are rare and cost one parse again).
 */
export function createSandbox(opts: SandboxOptions) {
  let tableFunctions: Promise<Set<string>> | undefined;
  const loadTableFunctions = () => {
    if (!tableFunctions) {
      const loading = opts.run('SELECT name FROM system.table_functions', {})
        .then((text) => new Set(text.split('\n').filter(Boolean).map((n) => n.toLowerCase())));
      tableFunctions = loading;
      // A failure is that request's; the next one asks again.
      loading.catch(() => { if (tableFunctions === loading) tableFunctions = undefined; });
    }
    return tableFunctions;
  };
  const allowed = new Map<string, true>();

  return async function check(statement: Statement, params: Record<string, unknown>, identifiers: readonly string[], database: string): Promise<void> {
    const key = JSON.stringify([statement.text, database, identifiers.map((name) => params[name])]);
    if (allowed.has(key)) return;
    const names = await loadTableFunctions();
    const dump = await opts.run(PREFIX + statement.text, params);
    checkTree(parseAstDump(dump), statement.text, names, database);
    if (allowed.size >= VERDICTS) allowed.delete(allowed.keys().next().value!);
    allowed.set(key, true);
  };
}
