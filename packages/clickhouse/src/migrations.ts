import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ClickHouseEngine } from './types.js';
import { MIGRATIONS_DIR } from './paths.js';
import { migrationError } from './errors.js';
import { splitStatements } from './sql-split.js';

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
  checksum: string;
  statements: string[];
}

export interface MigrationResult {
  /** 'NNNN_name' of each migration applied by this run, in order. */
  applied: string[];
  /** How many were already applied. */
  alreadyApplied: number;
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

const LEDGER_DDL = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  name String,
  checksum String,
  applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
) ENGINE = ReplacingMergeTree
ORDER BY version`;
// ReplacingMergeTree: two processes starting at once may both record a version; the
// duplicates collapse, and reads take one row per version meanwhile (LIMIT 1 BY).

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
      checksum: createHash('sha256').update(text).digest('hex'),
      statements,
    };
  });
}

export async function runMigrations(engine: ClickHouseEngine, dir: string = MIGRATIONS_DIR): Promise<MigrationResult> {
  const migrations = readMigrations(dir);
  await engine.command(LEDGER_DDL);
  const rows = await engine.query<{ version: number; checksum: string }>(
    'SELECT version, checksum FROM schema_migrations ORDER BY version, applied_at LIMIT 1 BY version',
  );
  const done = new Map(rows.map((r) => [Number(r.version), r.checksum]));
  // Checked before anything runs: an edited applied migration means the schema on disk is
  // no longer what the files say, and applying later migrations on top would hide that.
  for (const m of migrations) {
    const sum = done.get(m.version);
    if (sum !== undefined && sum !== m.checksum) {
      throw migrationError(`Migration ${m.file} was changed after it was applied (checksum ${sum.slice(0, 12)}… → ${m.checksum.slice(0, 12)}…); add a new migration instead`);
    }
  }
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    for (const [i, stmt] of m.statements.entries()) {
      try {
        // {database:String}: the one value a migration may need (a name a background mutation
        // resolves without the session's database, migration 0040).
        await engine.command(stmt, { database: engine.database });
      } catch (err) {
        throw migrationError(`Migration ${m.file} failed at statement ${i + 1}: ${(err as Error).message}`, err);
      }
    }
    await engine.insert('schema_migrations', [{ version: m.version, name: m.name, checksum: m.checksum }]);
    applied.push(`${m.file.slice(0, -4)}`);
  }
  return { applied, alreadyApplied: migrations.length - applied.length };
}
