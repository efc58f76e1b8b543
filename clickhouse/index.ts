import { fileURLToPath } from 'node:url';
import path from 'node:path';

/**
 * Where this folder is on disk. The SQL files are data of the release, not code: packages that
 * run them ask this module for the folder instead of guessing it from their own location, and
 * every process (services, CLI, tests) reads the same files whatever its working directory.
 */
export const CLICKHOUSE_DIR = path.dirname(fileURLToPath(import.meta.url));
export const MIGRATIONS_DIR = path.join(CLICKHOUSE_DIR, 'migrations');
export const QUERIES_DIR = path.join(CLICKHOUSE_DIR, 'queries');
export const VIEWS_DIR = path.join(CLICKHOUSE_DIR, 'views');
