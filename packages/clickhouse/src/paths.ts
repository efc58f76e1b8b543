import { fileURLToPath } from 'node:url';
import path from 'node:path';

/**
 * Repository paths, resolved from this file's location rather than process.cwd():
 * the CLI, the services and the tests start from different working directories,
 * yet must all read the same SQL.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
// packages/clickhouse/src → three levels up is the repository root.
export const REPO_ROOT = path.resolve(here, '../../..');
export const CLICKHOUSE_DIR = path.join(REPO_ROOT, 'clickhouse');
export const MIGRATIONS_DIR = path.join(CLICKHOUSE_DIR, 'migrations');
export const QUERIES_DIR = path.join(CLICKHOUSE_DIR, 'queries');
