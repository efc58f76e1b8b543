import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { assertColumns, assertTable, isIdentifier } from './identifiers.js';
import { badIdentifier } from './errors.js';

/**
 * Binary bodies into the embedded engine. chdb's raw insert takes text formats only, and a
 * query string cannot carry arbitrary bytes; so a RowBinary body is written to a spool file
 * and read back by `INSERT INTO t (cols) SELECT * FROM file(…, 'RowBinary')`: ClickHouse
 * takes the file's structure from the insertion table's columns, and
 * insert_deduplication_token applies to an INSERT … SELECT as to any insert. Why bother:
 * parsing RowBinary costs ClickHouse about a third of the CPU of JSONCompactEachRow for the
 * same events (bench:pipeline), and the insert is the slower half of the pipeline.
 */
export interface FileInsert {
  table: string;
  columns: readonly string[];
  data: Buffer;
  settings: Record<string, string | number | boolean>;
}

/** Setting values go into SQL text (SETTINGS cannot be bound): only plain tokens pass. */
const SAFE_SETTING_VALUE = /^[A-Za-z0-9_.:+-]*$/;

function settingsClause(settings: FileInsert['settings']): string {
  const parts = Object.entries(settings).map(([name, value]) => {
    if (!isIdentifier(name)) throw badIdentifier('setting name', name);
    if (typeof value === 'number' || typeof value === 'boolean') return `${name} = ${Number(value)}`;
    if (!SAFE_SETTING_VALUE.test(value)) throw badIdentifier(`value of setting ${name}`, value);
    return `${name} = '${value}'`;
  });
  return parts.length > 0 ? ` SETTINGS ${parts.join(', ')}` : '';
}

export function createFileInserter(spoolDir: string) {
  // The path goes into a string literal: refuse anything that could end it.
  if (/['\\]/.test(spoolDir)) throw badIdentifier('spool directory', spoolDir);
  mkdirSync(spoolDir, { recursive: true });
  removeOrphans(spoolDir);
  /** `run` executes the INSERT … SELECT on the session that should write. */
  return async function insertRowBinary(i: FileInsert, run: (sql: string) => Promise<unknown>): Promise<void> {
    assertTable(i.table);
    const columns = assertColumns(i.columns);
    // pid first: a process killed between write and delete leaves files a later start removes.
    const file = path.join(spoolDir, `${process.pid}-${randomUUID()}.rowbinary`);
    await fs.writeFile(file, i.data);
    try {
      await run(`INSERT INTO ${i.table} (${columns}) SELECT * FROM file('${file}', 'RowBinary')${settingsClause(i.settings)}`);
    } finally {
      await fs.rm(file, { force: true });
    }
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Spool files of processes that no longer run (killed mid-insert); never this process's own. */
function removeOrphans(spoolDir: string): void {
  for (const name of readdirSync(spoolDir)) {
    const pid = Number(name.split('-')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) rmSync(path.join(spoolDir, name), { force: true });
  }
}
