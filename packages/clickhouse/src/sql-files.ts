import { readFileSync } from 'node:fs';
import path from 'node:path';
import { QUERIES_DIR, VIEWS_DIR } from './paths.js';
import { sqlFileError } from './errors.js';
import { expandIncludes } from './sql-includes.js';

/**
 * The SQL of clickhouse/queries/<name>.sql. Read once, then served from memory: query
 * files are part of the release, so re-reading them per request would only cost I/O.
 * `name` may contain sub-folders ('stats/engagement'); anything that could climb out of
 * the queries folder is refused; `views/<name>` is clickhouse/views/<name>.sql. `{{> shared/name}}` placeholders are replaced by the
 * fragments they name (sql-includes.ts), so a sub-select several queries share is written once.
 */
const cache = new Map<string, string>();
const NAME = /^[a-z0-9_-]+(\/[a-z0-9_-]+)*$/i;

export function sqlFile(name: string, dir: string = QUERIES_DIR): string {
  const file = fileOf(name, dir);
  const hit = cache.get(file);
  if (hit !== undefined) return hit;
  const text = expandIncludes(readSql(file), (include) => readSql(fileOf(include, dir)), name);
  cache.set(file, text);
  return text;
}

/**
 * A shared fragment's text as `{{> name}}` inserts it into a query (its leading comment lines
 * left out), for a statement composed in code: what the SQL files include and what the code
 * appends are then one text.
 */
export function sqlFragment(name: string, dir: string = QUERIES_DIR): string {
  return expandIncludes(`{{> ${name}}}`, (include) => readSql(fileOf(include, dir)));
}

function fileOf(name: string, dir: string): string {
  if (!NAME.test(name)) throw sqlFileError(`Invalid SQL file name ${JSON.stringify(name)}`);
  // views/<name>: a materialized view's SELECT (clickhouse/views/, views.ts), which the rebuild
  // and verify queries include.
  if (name.startsWith('views/')) return path.join(VIEWS_DIR, `${name.slice('views/'.length)}.sql`);
  return path.join(dir, `${name}.sql`);
}

function readSql(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw sqlFileError(`SQL file not found: ${file}`, err);
  }
}
