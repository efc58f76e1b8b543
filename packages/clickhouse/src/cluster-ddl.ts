import { closingParen, isWord, join, nextSignificant, significant, tokenize, topLevelCommas, type Token } from './sql-tokens.js';

/**
 * One set of migration files, two renderings (clickhouse/deploy/README.md). Without a
 * cluster a statement is run exactly as the file has it. With one, every DDL statement gets
 * `ON CLUSTER`, and each table that holds rows becomes two: `<name>_local` on every node
 * (`Replicated*MergeTree`, or `Null`) and `<name>`, a `Distributed` table over them sharded by
 * chatbot. Queries, inserts and `INSERT … SELECT` keep the names they have; a materialized view
 * lives on every node and reads and writes the local tables, so each shard aggregates its own
 * rows. Node-local state (a `Join`, `Memory`, `Set`… table) has no place on a cluster: such a
 * table, and every statement naming it, is not run there, nor a statement marked
 * `-- single-node only`.
 */
export interface ClusterOptions {
  cluster: string;
  /** The database of unqualified names, named in the Distributed tables (CLICKHOUSE_DATABASE). */
  database: string;
}

export interface RenderedStatement {
  sql: string;
  /** Set when the statement is not run in this rendering: why. */
  skipped?: string;
  /** The table (as queries name it) a whole-table mutation of this statement rewrites. */
  mutates?: string;
}

export const LOCAL_SUFFIX = '_local';
const NODE_LOCAL_ENGINES = new Set(['Join', 'Memory', 'Set', 'Buffer', 'EmbeddedRocksDB', 'Log', 'TinyLog', 'StripeLog', 'File', 'KeeperMap']);
export const SINGLE_NODE_MARKER = /single-node only/i;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface Renderer {
  render(statement: string): RenderedStatement[];
}

/** A renderer for one run over the migrations in order: a statement may name a table an earlier file created. */
export function createRenderer(opts?: ClusterOptions): Renderer {
  if (!opts) return { render: (sql) => [{ sql, mutates: mutationTarget(tokenize(sql)) }] };
  if (!IDENTIFIER.test(opts.cluster)) throw new Error(`cluster name ${JSON.stringify(opts.cluster)} is not an identifier`);
  const state: ClusterState = { ...opts, sharded: new Map(), nodeLocal: new Set() };
  return { render: (sql) => renderForCluster(state, sql) };
}

interface ClusterState extends ClusterOptions {
  /** Tables split into `_local` + Distributed, with their sharding key. */
  sharded: Map<string, string>;
  nodeLocal: Set<string>;
}

const word = (text: string): Token => ({ kind: 'word', text });
const space: Token = { kind: 'space', text: ' ' };
const onCluster = (s: ClusterOptions): Token[] => [space, word('ON'), space, word('CLUSTER'), space, word(s.cluster)];

function renderForCluster(s: ClusterState, sql: string): RenderedStatement[] {
  const tokens = tokenize(sql);
  if (tokens.some((t) => t.kind === 'comment' && SINGLE_NODE_MARKER.test(t.text))) return [{ sql, skipped: 'marked single-node only' }];
  const local = [...s.nodeLocal].find((name) => names(tokens, name));
  if (local) return [{ sql, skipped: `uses the node-local table ${local}` }];
  const at = (i: number) => nextSignificant(tokens, i);
  let i = at(0);
  const verb = tokens[i]?.text.toUpperCase();
  if (verb === 'CREATE') {
    i = at(i + 1);
    if (isWord(tokens[i], 'OR')) i = at(at(i + 1) + 1);
    if (isWord(tokens[i], 'TABLE')) return createTable(s, tokens, at(i + 1));
    if (isWord(tokens[i], 'MATERIALIZED')) return materializedView(s, tokens, at(at(i + 1) + 1));
    if (isWord(tokens[i], 'VIEW') || isWord(tokens[i], 'DICTIONARY') || isWord(tokens[i], 'DATABASE')) {
      return [{ sql: join(withClusterAfterName(s, tokens, skipIfExists(tokens, at(i + 1)))) }];
    }
    throw new Error(`cannot render for a cluster: ${firstLine(sql)}`);
  }
  if (verb === 'ALTER' && isWord(tokens[at(i + 1)], 'TABLE')) return alterTable(s, tokens, at(at(i + 1) + 1));
  if (verb === 'DROP' || verb === 'TRUNCATE' || verb === 'DETACH' || verb === 'ATTACH') {
    let n = at(i + 1);
    const kind = tokens[n]?.text.toUpperCase();
    if (kind === 'TABLE' || kind === 'VIEW' || kind === 'DICTIONARY') n = at(n + 1);
    n = skipIfExists(tokens, n);
    const name = tokens[n].text;
    if (!s.sharded.has(name)) return [{ sql: join(withClusterAfterName(s, tokens, n)) }];
    // TRUNCATE empties the rows (the local table); DROP removes the Distributed table, then its
    // rows, SYNC: a replicated table's Keeper path is freed before the statement returns, so a
    // table created again under the same name in the same run finds it free (else code 253).
    const localSql = join(withClusterAfterName(s, renamed(tokens, n, name + LOCAL_SUFFIX), n));
    return verb === 'TRUNCATE' ? [{ sql: localSql }] : [{ sql: join(withClusterAfterName(s, tokens, n)) }, { sql: verb === 'DROP' ? `${localSql.trimEnd().replace(/;$/, '')} SYNC` : localSql }];
  }
  if (verb === 'RENAME' || verb === 'EXCHANGE') {
    const split = tokens.find((t) => t.kind === 'word' && s.sharded.has(t.text));
    if (split) throw new Error(`cannot render for a cluster: ${verb} of the sharded table ${split.text} (create the new table and INSERT … SELECT instead)`);
    return [{ sql: `${sql} ON CLUSTER ${s.cluster}` }];
  }
  // INSERT, SELECT, SYSTEM…: through the Distributed tables, under the names the file uses.
  return [{ sql, mutates: mutationTarget(tokens) }];
}

function createTable(s: ClusterState, tokens: Token[], nameAt: number): RenderedStatement[] {
  const n = skipIfExists(tokens, nameAt);
  const name = tokens[n].text;
  const ifNotExists = n !== nameAt ? 'IF NOT EXISTS ' : '';
  let depth = 0;
  let engineAt = -1;
  for (let i = n + 1; i < tokens.length && engineAt < 0; i++) {
    const t = tokens[i];
    if (t.kind === 'punct' && t.text === '(') depth++;
    else if (t.kind === 'punct' && t.text === ')') depth--;
    else if (depth === 0 && isWord(t, 'ENGINE')) engineAt = i;
  }
  if (engineAt < 0) throw new Error(`cannot render for a cluster: CREATE TABLE ${name} names no ENGINE`);
  let e = nextSignificant(tokens, engineAt + 1);
  if (tokens[e]?.text === '=') e = nextSignificant(tokens, e + 1);
  const engine = tokens[e].text;
  if (NODE_LOCAL_ENGINES.has(engine)) {
    s.nodeLocal.add(name);
    return [{ sql: join(tokens), skipped: `${engine} is node-local state` }];
  }
  const replicate = /MergeTree$/.test(engine) && !/^(Replicated|Shared)/.test(engine);
  if (!replicate && engine !== 'Null') return [{ sql: join(withClusterAfterName(s, tokens, n)) }];

  const argsOpen = nextSignificant(tokens, e + 1);
  const argsClose = tokens[argsOpen]?.text === '(' ? closingParen(tokens, argsOpen) : -1;
  const localName = name + LOCAL_SUFFIX;
  const out = tokens.slice();
  if (replicate) {
    const args = argsClose > 0 ? join(tokens.slice(argsOpen + 1, argsClose)).trim() : '';
    const replicated = `Replicated${engine}('/clickhouse/tables/{shard}/{database}/${localName}', '{replica}'${args ? `, ${args}` : ''})`;
    out.splice(e, argsClose > 0 ? argsClose - e + 1 : 1, word(replicated));
  }
  // An `AS other` clone copies the columns of the other table's local half. Rows go to the
  // shard of their chatbot; a table without one shards by its first column: never rand(), so a
  // block retried with its dedup token reaches the shard that holds the first attempt.
  const after = nextSignificant(tokens, n + 1);
  let key = 'rand()';
  if (isWord(tokens[after], 'AS')) {
    const src = nextSignificant(tokens, after + 1);
    const source = tokens[src].text;
    if (s.sharded.has(source)) {
      out[src] = word(source + LOCAL_SUFFIX);
      key = s.sharded.get(source)!;
    }
  } else if (tokens[after]?.text === '(') {
    const columns = columnNames(tokens, after);
    key = columns.includes('chatbot_id') ? 'cityHash64(chatbot_id)' : `cityHash64(${columns[0]})`;
  }
  out[n] = word(localName);
  out.splice(n + 1, 0, ...onCluster(s));
  s.sharded.set(name, key);
  const distributed = `CREATE TABLE ${ifNotExists}${name} ON CLUSTER ${s.cluster} AS ${localName}\n`
    + `ENGINE = Distributed(${s.cluster}, ${s.database}, ${localName}, ${key})`;
  return [{ sql: join(out) }, { sql: distributed }];
}

function materializedView(s: ClusterState, tokens: Token[], nameAt: number): RenderedStatement[] {
  const n = skipIfExists(tokens, nameAt);
  const to = nextSignificant(tokens, n + 1);
  if (!isWord(tokens[to], 'TO')) throw new Error(`cannot render for a cluster: materialized view ${tokens[n].text} needs TO <table>`);
  const out = tokens.map((t, i) => (i > n && isTableReference(s, tokens, i) ? word(t.text + LOCAL_SUFFIX) : t));
  out.splice(n + 1, 0, ...onCluster(s));
  return [{ sql: join(out) }];
}

/**
 * A sharded table's name where a table goes (after FROM, JOIN, TO, IN) or qualifying a column
 * (`events.chatbot_id`): not a column or alias that happens to share the name.
 */
function isTableReference(s: ClusterState, tokens: Token[], i: number): boolean {
  if (tokens[i].kind !== 'word' || !s.sharded.has(tokens[i].text)) return false;
  let p = i - 1;
  while (p >= 0 && !significant(tokens[p])) p--;
  if (tokens[p]?.text === '.') return false;
  if (/^(FROM|JOIN|TO|IN)$/i.test(tokens[p]?.text ?? '')) return true;
  return tokens[i + 1]?.text === '.';
}

function alterTable(s: ClusterState, tokens: Token[], n: number): RenderedStatement[] {
  const name = tokens[n].text;
  const mutates = mutationTarget(tokens);
  const [first] = alterCommands(tokens, n + 1);
  if (isWord(first?.[0], 'MODIFY') && isWord(first?.[1], 'QUERY')) {
    // A view's new query reads and writes the local tables, as its CREATE does (materializedView).
    const out = tokens.map((t, i) => (i > n && isTableReference(s, tokens, i) ? word(t.text + LOCAL_SUFFIX) : t));
    return [{ sql: join(withClusterAfterName(s, out, n)) }];
  }
  if (!s.sharded.has(name)) return [{ sql: join(withClusterAfterName(s, tokens, n)), mutates }];
  const local = { sql: join(withClusterAfterName(s, renamed(tokens, n, name + LOCAL_SUFFIX), n)), mutates };
  const kinds = alterCommands(tokens, n + 1).map(isColumnCommand);
  if (kinds.every((k) => !k)) return [local];
  if (!kinds.every(Boolean)) throw new Error(`cannot render for a cluster: ALTER TABLE ${name} mixes column changes with other commands (split it)`);
  // The Distributed table's columns follow the local table's.
  return [local, { sql: join(withClusterAfterName(s, tokens, n)) }];
}

/** The commands of an ALTER TABLE, as token lists, from `from` up to a trailing SETTINGS clause. */
function alterCommands(tokens: Token[], from: number): Token[][] {
  let end = tokens.length;
  let depth = 0;
  for (let i = from; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    else if (depth === 0 && isWord(t, 'SETTINGS')) { end = i; break; }
  }
  const commas = topLevelCommas(tokens, from, end);
  const bounds = [from - 1, ...commas, end];
  return bounds.slice(1).map((b, k) => tokens.slice(bounds[k] + 1, b).filter(significant));
}

const isColumnCommand = (c: Token[]) => /^(ADD|DROP|MODIFY|RENAME|COMMENT)$/i.test(c[0]?.text ?? '') && isWord(c[1], 'COLUMN');

/** `ALTER TABLE t UPDATE/DELETE/MATERIALIZE/CLEAR …` or `DELETE FROM t`: the table whose every part it rewrites. */
export function mutationTarget(tokens: Token[]): string | undefined {
  const sig = tokens.filter(significant);
  if (isWord(sig[0], 'DELETE') && isWord(sig[1], 'FROM')) return sig[2]?.text;
  if (!isWord(sig[0], 'ALTER') || !isWord(sig[1], 'TABLE')) return undefined;
  const nameAt = tokens.indexOf(sig[2]);
  const mutation = alterCommands(tokens, nameAt + 1).some((c) => /^(UPDATE|DELETE|MATERIALIZE|CLEAR|APPLY)$/i.test(c[0]?.text ?? ''));
  return mutation ? sig[2].text : undefined;
}

function columnNames(tokens: Token[], open: number): string[] {
  const close = closingParen(tokens, open);
  const bounds = [open, ...topLevelCommas(tokens, open + 1, close), close];
  return bounds.slice(1).map((b, k) => tokens.slice(bounds[k] + 1, b).find(significant)?.text ?? '');
}

function skipIfExists(tokens: Token[], i: number): number {
  if (!isWord(tokens[i], 'IF')) return i;
  let j = nextSignificant(tokens, i + 1);
  if (isWord(tokens[j], 'NOT')) j = nextSignificant(tokens, j + 1);
  return nextSignificant(tokens, j + 1);
}

/** The tokens with ON CLUSTER after the (possibly db-qualified) name at `n`. */
function withClusterAfterName(s: ClusterOptions, tokens: Token[], n: number): Token[] {
  let end = n;
  while (tokens[end + 1]?.text === '.' && tokens[end + 2]) end += 2;
  const out = tokens.slice();
  out.splice(end + 1, 0, ...onCluster(s));
  return out;
}

function renamed(tokens: Token[], n: number, name: string): Token[] {
  const out = tokens.slice();
  out[n] = word(name);
  return out;
}

/** Whether the statement names the table, as an identifier or inside a string (joinGet('db.name', …)). */
function names(tokens: Token[], table: string): boolean {
  const inText = new RegExp(`(^|[^A-Za-z0-9_])${table}($|[^A-Za-z0-9_])`);
  return tokens.some((t) => (t.kind === 'word' && t.text === table) || (t.kind === 'string' && inText.test(t.text)));
}

const firstLine = (sql: string) => sql.split('\n').find((l) => l.trim() && !l.trim().startsWith('--'))?.trim() ?? sql;
