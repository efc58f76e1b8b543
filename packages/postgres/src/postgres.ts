import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { Logger } from 'pino';
import * as schema from './schema/index.js';
import type { Database, Postgres } from './types.js';

export interface PostgresOptions {
  /** `postgres://…`: a server through node-postgres; unset: embedded PGlite under `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  log: Logger;
  /** Server pool size; a dashboard process needs few connections, and servers cap the total. */
  poolSize?: number;
}

/** The checked-in drizzle-kit migrations, resolved from this file so the cwd does not matter. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../migrations', import.meta.url));

/**
 * Any fixed 64-bit number works; it only has to be the same in every process, so that two
 * services starting together against one server apply the migrations one after the other.
 */
const MIGRATION_LOCK_KEY = 4_242_017_001;

export async function createPostgres(opts: PostgresOptions): Promise<Postgres> {
  return opts.databaseUrl ? createServerPostgres(opts.databaseUrl, opts) : createEmbeddedPostgres(opts);
}

async function createServerPostgres(databaseUrl: string, opts: PostgresOptions): Promise<Postgres> {
  const log = opts.log.child({ component: 'postgres', kind: 'server' });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: opts.poolSize ?? 10 });
  // An idle client losing its connection emits 'error' on the pool; unhandled, it kills the process.
  pool.on('error', (err) => log.warn({ err }, 'idle PostgreSQL connection failed'));
  const db: Database = drizzlePg(pool, { schema });
  return {
    kind: 'server',
    db,
    async migrate() {
      const client = await pool.connect();
      try {
        // Session-level advisory lock: held on this connection for the whole migration run.
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        try {
          await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
        } finally {
          await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
        }
      } finally {
        client.release();
      }
      log.info('PostgreSQL migrations applied');
    },
    async exclusive(key, job) {
      const client = await pool.connect();
      try {
        const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [key]);
        if (!rows[0].locked) return undefined;
        try {
          return await job();
        } finally {
          await client.query('select pg_advisory_unlock($1)', [key]);
        }
      } finally {
        client.release();
      }
    },
    ...pingAndClose(db, () => pool.end()),
  };
}

async function createEmbeddedPostgres(opts: PostgresOptions): Promise<Postgres> {
  const log = opts.log.child({ component: 'postgres', kind: 'embedded' });
  const dir = path.join(opts.dataDir, 'postgres');
  fs.mkdirSync(dir, { recursive: true });
  const client = await PGlite.create(dir);
  const db = drizzlePglite(client, { schema });
  const held = new Set<number>();
  return {
    kind: 'embedded',
    db: db as Database,
    async migrate() {
      // PGlite is single-connection and this process holds DATA_DIR's lock: no concurrent migrator.
      await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
      log.info('PGlite migrations applied');
    },
    async exclusive(key, job) {
      // PGlite is one process's (DATA_DIR's lock): holders can only be in this one.
      if (held.has(key)) return undefined;
      held.add(key);
      try {
        return await job();
      } finally {
        held.delete(key);
      }
    },
    ...pingAndClose(db, () => client.close()),
  };
}

/** ping and an idempotent close, the same for both engines. */
function pingAndClose(
  db: { execute(query: ReturnType<typeof sql>): PromiseLike<unknown> },
  release: () => Promise<void>,
): Pick<Postgres, 'ping' | 'close'> {
  let closed = false;
  return {
    async ping() {
      await db.execute(sql`select 1`);
    },
    async close() {
      if (closed) return;
      closed = true;
      await release();
    },
  };
}
