import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ClickHouseEngine } from './types.js';
import { MIGRATIONS_DIR } from './paths.js';
import { ClickHouseErrorCode, migrationError } from './errors.js';
import { splitStatements } from './sql-split.js';
import { createRenderer, SINGLE_NODE_MARKER, type RenderedStatement } from './cluster-ddl.js';
import { significant, tokenize } from './sql-tokens.js';
import { applyViews, renderViews, viewLedgerDdl, type RenderedView } from './apply-views.js';
import { backfillTokenIds } from './backfill-token-ids.js';

/**
 * Applies clickhouse/migrations/NNNN_name.sql in version order, each once, recorded in
 * `schema_migrations`. ClickHouse has no transactional DDL: when a statement fails, the
 * ones before it in that file stay applied and the file is not recorded, so the next run
 * repeats it. Migration statements must therefore be idempotent (IF NOT EXISTS, ...).
 */
export interface MigrationFile {
  version: number;
  name: string;
  file: string;
  /** A digest of the statements without their comments: a migration's comments may be corrected, its statements never. */
  checksum: string;
  /** The digest of the whole text that older ledgers recorded: accepted as the same migration. */
  textChecksum: string;
  statements: string[];
}

export interface MigrationResult {
  /** 'NNNN_name' of each migration applied by this run, in order. */
  applied: string[];
  /** How many were already applied. */
  alreadyApplied: number;
  /** The views (clickhouse/views/) this run created or gave a new query (apply-views.ts). */
  views: string[];
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export interface MigrationOptions {
  dir?: string;
  /** CLICKHOUSE_CLUSTER: render every statement for this cluster (cluster-ddl.ts). */
  cluster?: string;
  /**
   * Run whole-table mutations (ALTER … UPDATE/DELETE, MATERIALIZE …) on tables holding rows:
   * `npm run cli -- migrate --backfill` only. Start-up skips them on empty tables (where they do
   * nothing) and otherwise stops, naming that command, instead of rewriting a table while booting.
   */
  backfill?: boolean;
  /** The batched fills' rows per batch (backfill-token-ids.ts): tests set it small. */
  backfillBatchRows?: number;
  /** Apply clickhouse/views/ after the migrations: by default only with the project's own migrations folder. */
  views?: boolean;
}

/** The migrations as they would run: the ledger's table first (version 0), then each file's statements. */
export interface RenderedMigration {
  file: string;
  version: number;
  statements: RenderedStatement[];
}

// ReplacingMergeTree: two processes starting at once may both record a version; the
// duplicates collapse, and reads take one row per version meanwhile (LIMIT 1 BY). On a cluster
// one replicated table with one Keeper path for every node of every shard: the whole cluster
// reads the same list.
export function ledgerDdl(cluster?: string): string {
  const engine = cluster
    ? `ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/schema_migrations', '{shard}-{replica}')`
    : 'ReplacingMergeTree';
  return `CREATE TABLE IF NOT EXISTS schema_migrations${cluster ? ` ON CLUSTER ${cluster}` : ''} (
  version UInt32,
  name String,
  checksum String,
  applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
) ENGINE = ${engine}
ORDER BY version`;
}

/** Every migration rendered for one mode (no store touched): what `migrate --print` shows. */
export function renderMigrations(migrations: MigrationFile[], opts: { cluster?: string; database: string }): RenderedMigration[] {
  return renderAll(migrations, opts).migrations;
}

/** The migrations, then the views, rendered by one renderer: a view may read a table any migration created. */
function renderAll(migrations: MigrationFile[], opts: { cluster?: string; database: string }): { migrations: RenderedMigration[]; views: () => RenderedView[] } {
  const renderer = createRenderer(opts.cluster ? { cluster: opts.cluster, database: opts.database } : undefined);
  const rendered = migrations.map((m) => ({
    file: m.file,
    version: m.version,
    statements: m.statements.flatMap((s, i) => {
      try {
        return renderer.render(s);
      } catch (err) {
        throw migrationError(`Migration ${m.file}, statement ${i + 1}: ${(err as Error).message}`, err);
      }
    }),
  }));
  return { migrations: rendered, views: () => renderViews(renderer) };
}

/**
 * A renderer that has seen every migration, for statements run outside them (an erasure's
 * mutations): on a cluster it knows which tables are sharded, so `ALTER TABLE events …` becomes
 * `ALTER TABLE events_local ON CLUSTER …`; on one node it returns each statement as it is.
 */
export function rendererAfterMigrations(opts: { cluster?: string; database: string }): (sql: string) => RenderedStatement[] {
  const renderer = createRenderer(opts.cluster ? { cluster: opts.cluster, database: opts.database } : undefined);
  if (opts.cluster) for (const m of readMigrations()) for (const s of m.statements) renderer.render(s);
  return (sql) => renderer.render(sql);
}

/** The SQL text of `migrate --print`: the ledger's table and every statement, skipped ones as comments. */
export function printMigrations(opts: { cluster?: string; database: string; dir?: string }): string {
  const parts = [`-- ${opts.cluster ? `cluster ${opts.cluster}` : 'single node'}, database ${opts.database}: every migration (the ledger says which ones a store still needs)`, `${ledgerDdl(opts.cluster)};`];
  const all = renderAll(readMigrations(opts.dir), opts);
  const print = (s: RenderedStatement) => (s.skipped ? `-- not run here (${s.skipped}):\n${s.sql.replace(/^/gm, '-- ')}` : `${s.sql};`);
  for (const m of all.migrations) parts.push(`-- ${m.file}`, ...m.statements.map(print));
  parts.push('-- the views (clickhouse/views/), each applied when its file changed or it is missing', `${viewLedgerDdl(opts.cluster)};`);
  for (const v of all.views()) parts.push(`-- views/${v.view}.sql`, ...v.statements.map(print));
  return `${parts.join('\n\n')}\n`;
}

export function readMigrations(dir: string = MIGRATIONS_DIR): MigrationFile[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  const seen = new Map<number, string>();
  return files.map((file) => {
    const m = FILE.exec(file);
    if (!m) throw migrationError(`Migration file ${file} does not match NNNN_name.sql`);
    const version = Number(m[1]);
    const dup = seen.get(version);
    if (dup) throw migrationError(`Migrations ${dup} and ${file} share version ${m[1]}`);
    seen.set(version, file);
    // Line endings normalised: a checkout with CRLF must not look like an edited migration.
    const text = readFileSync(path.join(dir, file), 'utf8').replace(/\r\n/g, '\n');
    const statements = splitStatements(text);
    if (statements.length === 0) throw migrationError(`Migration ${file} has no statements`);
    return {
      version,
      name: m[2],
      file,
      checksum: sha256(statements.map(statementDigestText).join(';\n')),
      textChecksum: sha256(text),
      statements,
    };
  });
}

export async function runMigrations(engine: ClickHouseEngine, options: string | MigrationOptions = {}): Promise<MigrationResult> {
  const opts = typeof options === 'string' ? { dir: options } : options;
  const migrations = readMigrations(opts.dir ?? MIGRATIONS_DIR);
  // Rendered before anything runs: a statement the cluster form cannot express stops here.
  const all = renderAll(migrations, { cluster: opts.cluster, database: engine.database });
  const rendered = all.migrations;
  const withViews = opts.views ?? (opts.dir === undefined || opts.dir === MIGRATIONS_DIR);
  const views = withViews ? all.views() : [];
  await engine.command(ledgerDdl(opts.cluster));
  const rows = await engine.query<{ version: number; checksum: string }>(
    'SELECT version, checksum FROM schema_migrations ORDER BY version, applied_at DESC LIMIT 1 BY version',
  );
  const done = new Map(rows.map((r) => [Number(r.version), r.checksum]));
  // Checked before anything runs: an edited applied migration means the schema on disk is
  // no longer what the files say, and applying later migrations on top would hide that.
  for (const m of migrations) {
    const sum = done.get(m.version);
    if (sum !== undefined && sum !== m.checksum && sum !== m.textChecksum) {
      throw migrationError(`Migration ${m.file} was changed after it was applied (checksum ${sum.slice(0, 12)}… → ${m.checksum.slice(0, 12)}…); add a new migration instead`);
    }
  }
  // A ledger row of the whole text's digest (recorded before statement digests) is recorded
  // again with the statements' digest, the latest row of a version being the one read: from
  // then on the file's comments may be corrected.
  const upgraded = migrations.filter((m) => done.get(m.version) === m.textChecksum && m.textChecksum !== m.checksum);
  if (upgraded.length > 0) await engine.insert('schema_migrations', upgraded.map((m) => ({ version: m.version, name: m.name, checksum: m.checksum })));
  const applied: string[] = [];
  for (const [k, m] of migrations.entries()) {
    if (done.has(m.version)) continue;
    const filled = new Set<string>();
    for (const [i, stmt] of rendered[k].statements.entries()) {
      if (stmt.skipped) continue;
      try {
        const fill = opts.cluster ? undefined : batchedFill(stmt.sql);
        if (fill) {
          // Every statement of the fill is replaced by the one batched run, at the first of them.
          if (filled.has(fill.name)) continue;
          filled.add(fill.name);
          if (!opts.backfill && !(await isEmpty(engine, fill.reads))) {
            throw rewriteRefused(m.file, fill.reads);
          }
          if (opts.backfill) await fill.run(engine, { batchRows: opts.backfillBatchRows });
          continue;
        }
        if (stmt.mutates && !opts.backfill && !(await isEmpty(engine, stmt.mutates))) {
          throw rewriteRefused(m.file, stmt.mutates);
        }
        // {database:String}: the one value a migration may need (a name a background mutation
        // resolves without the session's database, migration 0040).
        if (!stmt.mutates || opts.backfill) await engine.command(stmt.sql, { database: engine.database });
      } catch (err) {
        if ((err as { code?: string }).code === ClickHouseErrorCode.MIGRATION) throw err;
        throw migrationError(`Migration ${m.file} failed at statement ${i + 1}: ${(err as Error).message}`, err);
      }
    }
    await engine.insert('schema_migrations', [{ version: m.version, name: m.name, checksum: m.checksum }]);
    applied.push(`${m.file.slice(0, -4)}`);
  }
  const viewsApplied = withViews ? await applyViews(engine, views, opts.cluster) : [];
  return { applied, alreadyApplied: migrations.length - applied.length, views: viewsApplied };
}

/**
 * A migration's statements marked `-- batched fill: NAME` fill rows stored before it: on one node
 * they are run as NAME's batches (`migrate --backfill`), not as written. The marker is a comment,
 * so marking an applied migration's statements does not change its checksum.
 */
const BATCHED_FILLS = {
  token_ids: { reads: 'events', run: backfillTokenIds },
} as const;

const BATCHED_FILL_MARKER = /^--\s*batched fill:\s*(\w+)\s*$/;

/** The NAME of a statement's `-- batched fill: NAME` marker: a comment as the tokenizer reads it, as the single-node marker is. */
export function batchedFillName(sql: string): string | undefined {
  for (const t of tokenize(sql)) {
    const name = t.kind === 'comment' ? BATCHED_FILL_MARKER.exec(t.text.trim())?.[1] : undefined;
    if (name !== undefined) return name;
  }
  return undefined;
}

function batchedFill(sql: string): ({ name: string } & (typeof BATCHED_FILLS)[keyof typeof BATCHED_FILLS]) | undefined {
  const name = batchedFillName(sql);
  if (name === undefined) return undefined;
  if (!Object.hasOwn(BATCHED_FILLS, name)) throw migrationError(`Unknown batched fill "${name}"`);
  return { name, ...BATCHED_FILLS[name as keyof typeof BATCHED_FILLS] };
}

const rewriteRefused = (file: string, table: string) => migrationError(
  `Migration ${file} rewrites every row of ${table}, which holds rows: start-up does not; run \`npm run cli -- migrate --backfill\` (then start again)`);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What a statement does: its tokens without whitespace or comments, but with a `single-node only` marker (it changes where the statement runs). */
const statementDigestText = (statement: string) => tokenize(statement)
  .filter((t) => significant(t) || (t.kind === 'comment' && SINGLE_NODE_MARKER.test(t.text)))
  .map((t) => t.text).join(' ');

/** An empty table: a mutation of it has nothing to rewrite (count() reads the parts' row counts, not the rows). */
async function isEmpty(engine: ClickHouseEngine, table: string): Promise<boolean> {
  const [row] = await engine.query<{ n: string | number }>(`SELECT count() AS n FROM ${table}`);
  return Number(row?.n ?? 0) === 0;
}
