import { readFileSync } from 'node:fs';
import path from 'node:path';
import { QUERIES_DIR } from './paths.js';
import { sqlFileError } from './errors.js';

/**
 * The SQL of clickhouse/queries/<name>.sql. Read once, then served from memory: query
 * files are part of the release, so re-reading them per request would only cost I/O.
 * `name` may contain sub-folders ('stats/engagement'); anything that could climb out of
 * the queries folder is refused.
 */
const cache = new Map<string, string>();
const NAME = /^[a-z0-9_-]+(\/[a-z0-9_-]+)*$/i;

export function sqlFile(name: string, dir: string = QUERIES_DIR): string {
  if (!NAME.test(name)) throw sqlFileError(`Invalid SQL file name ${JSON.stringify(name)}`);
  const file = path.join(dir, `${name}.sql`);
  const hit = cache.get(file);
  if (hit !== undefined) return hit;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw sqlFileError(`SQL file not found: ${file}`, err);
  }
  cache.set(file, text);
  return text;
}
