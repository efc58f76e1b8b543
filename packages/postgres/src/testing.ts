/**
 * For tests only: the two database variants every PostgreSQL-backed suite runs against.
 * Embedded PGlite always runs; the server variant runs when DATABASE_URL is set (see
 * serverUnderTest: a missing variable fails under CI, an unreachable server fails always).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { serverUnderTest } from '@chatlytics/core/testing';
import { createPostgres, MIGRATIONS_FOLDER } from './postgres.js';
import type { Postgres } from './types.js';

export interface TestDatabase {
  postgres: Postgres;
  /** The URL of the throw-away database (server variant) or undefined (embedded). */
  databaseUrl?: string;
  dataDir: string;
  /** Close the connection and remove the database or directory. */
  destroy(): Promise<void>;
}

export interface DatabaseVariant {
  name: 'pglite' | 'server';
  skip: string | false;
  open(opts?: { log?: Logger; migrate?: boolean }): Promise<TestDatabase>;
}

const silent = () => pino({ level: 'silent' });

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * A fresh PGlite directory costs an initdb in WebAssembly (4-20 s on a busy 2-core machine);
 * opening an existing one about 1 s. So every test process copies one migrated template,
 * built once per migration set and kept in the OS temp dir. Its name carries a digest of the
 * migrations, so a schema change builds a new template.
 */
function migrationsDigest(): string {
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(MIGRATIONS_FOLDER, { recursive: true, encoding: 'utf8' }).sort()) {
    const full = path.join(MIGRATIONS_FOLDER, file);
    if (fs.statSync(full).isFile()) hash.update(file).update(fs.readFileSync(full));
  }
  return hash.digest('hex').slice(0, 16);
}

async function pgliteTemplate(): Promise<string> {
  const template = path.join(os.tmpdir(), `chatlytics-pglite-template-${migrationsDigest()}`);
  // The marker is written last, before the rename: a template without it was never finished.
  if (fs.existsSync(path.join(template, 'READY'))) return template;
  const building = fs.mkdtempSync(`${template}-building-`);
  const postgres = await createPostgres({ dataDir: building, log: silent() });
  await postgres.migrate();
  await postgres.close();
  fs.writeFileSync(path.join(building, 'READY'), '');
  try {
    fs.renameSync(building, template);
  } catch {
    // Another test process finished its template first: use that one.
    fs.rmSync(building, { recursive: true, force: true });
  }
  return template;
}

export function databaseVariants(): DatabaseVariant[] {
  const server = serverUnderTest('DATABASE_URL');
  return [
    {
      name: 'pglite',
      skip: false,
      async open(opts = {}) {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-pg-'));
        if (opts.migrate !== false) fs.cpSync(path.join(await pgliteTemplate(), 'postgres'), path.join(dataDir, 'postgres'), { recursive: true });
        const postgres = await createPostgres({ dataDir, log: opts.log ?? silent() });
        // Still run: it must be a no-op on the migrated copy, which the contract suite asserts.
        if (opts.migrate !== false) await postgres.migrate();
        return {
          postgres, dataDir,
          async destroy() {
            await postgres.close();
            fs.rmSync(dataDir, { recursive: true, force: true });
          },
        };
      },
    },
    {
      name: 'server',
      skip: server.skip,
      async open(opts = {}) {
        const maintenanceUrl = server.value!;
        // Unique per run and per suite so parallel test files never share a database.
        const name = `chatlytics_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
        const admin = new pg.Client({ connectionString: maintenanceUrl });
        await admin.connect();
        try { await admin.query(`create database "${name}"`); } finally { await admin.end(); }
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-pg-'));
        const databaseUrl = withDatabase(maintenanceUrl, name);
        const postgres = await createPostgres({ databaseUrl, dataDir, log: opts.log ?? silent(), poolSize: 4 });
        if (opts.migrate !== false) await postgres.migrate();
        return {
          postgres, databaseUrl, dataDir,
          async destroy() {
            await postgres.close();
            fs.rmSync(dataDir, { recursive: true, force: true });
            const c = new pg.Client({ connectionString: maintenanceUrl });
            await c.connect();
            try { await c.query(`drop database if exists "${name}" with (force)`); } finally { await c.end(); }
          },
        };
      },
    },
  ];
}
