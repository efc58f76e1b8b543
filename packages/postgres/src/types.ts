import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';

/**
 * One drizzle database type for both drivers: node-postgres against a server, PGlite embedded.
 * Repositories take a `Database` and never know which one they run on.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Database = PgDatabase<PgQueryResultHKT, any>;

export interface Postgres {
  readonly kind: 'server' | 'embedded';
  readonly db: Database;
  /** Apply the checked-in drizzle-kit migrations (idempotent). */
  migrate(): Promise<void>;
  /**
   * Runs `job` only if no other holder of `key` (any process on this database) is running one:
   * a session-level advisory lock on the server, a flag in this process embedded (PGlite has
   * one process). Resolves to undefined when someone else holds it.
   */
  exclusive<T>(key: number, job: () => Promise<T>): Promise<T | undefined>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
