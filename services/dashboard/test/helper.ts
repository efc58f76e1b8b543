import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import fastifyCookie from '@fastify/cookie';
import { Writable } from 'node:stream';
import { loadConfig } from '@chatlytics/core';
import type { DatabaseVariant, TestDatabase } from '@chatlytics/postgres/testing';
import dashboardApp from '../src/app.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import { createLocalRawContentStorage, type RawContentStorage } from '../src/data-sources/raw-content-storage.js';
import { NOW, USERS, testFixture } from './fixture.js';

export const APP_URL = 'http://localhost:3000';
export const TEST_SESSION_SECRET = 'test-session-secret-'.padEnd(40, 'x');

/** The value of a cookie signed by the app: what the browser cannot read but the server can. */
export function unsign(value: string): { valid: boolean; value: string | null } {
  return fastifyCookie.unsign(value, TEST_SESSION_SECRET);
}

export interface TestApp {
  app: FastifyInstance;
  tdb: TestDatabase;
  /** Log lines written by the app (JSON objects), for asserting what was logged. */
  logs: Record<string, unknown>[];
  /** Log in through POST /login and return the `Cookie` header value of the session. */
  login(user?: { email: string; password: string }): Promise<string>;
}

/**
 * The dashboard as the entry point builds it (fastify/demo style): a real database of the given
 * variant with the test fixture imported, raw contents in a temporary storage, time pinned to NOW.
 */
export async function buildTestApp(
  t: { teardown(fn: () => unknown): void }, variant: DatabaseVariant,
  opts: { storage?: RawContentStorage; env?: Record<string, string>; clock?: () => Date; tdb?: TestDatabase } = {},
): Promise<TestApp> {
  // A given database (a second app on the same one, as a second process) is the caller's to close and is not re-seeded.
  const tdb = opts.tdb ?? await variant.open();
  if (!opts.tdb) t.teardown(() => tdb.destroy());
  const storage = opts.storage ?? createLocalRawContentStorage(path.join(tdb.dataDir, 'storage'));
  if (!opts.tdb) await importFixture(tdb.postgres.db, testFixture(), { storage, passwordCost: TEST_SCRYPT_COST });
  // A file outside the storage root, which the fixture's "../../etc/passwd"-style path must not reach.
  fs.writeFileSync(path.join(tdb.dataDir, 'outside.txt'), 'secret');

  const logs: Record<string, unknown>[] = [];
  const stream = new Writable({ write(chunk, _enc, cb) { logs.push(JSON.parse(String(chunk))); cb(); } });
  // Start-up is not what these tests measure: on a loaded 2-core CI box plugin start can exceed
  // avvio's 10 s default, so the limit is generous rather than a source of flaky failures.
  const app: FastifyInstance = Fastify({ loggerInstance: pino({ level: 'info' }, stream) as FastifyBaseLogger, pluginTimeout: 120_000 });
  const config = loadConfig({ DATA_DIR: tdb.dataDir, APP_URL, SESSION_SECRET: TEST_SESSION_SECRET, ...opts.env });
  await app.register(dashboardApp, {
    config, postgres: tdb.postgres, storage, passwordCost: TEST_SCRYPT_COST, clock: opts.clock ?? (() => new Date(NOW)),
  });
  await app.ready();
  t.teardown(() => app.close());

  return {
    app, tdb, logs,
    async login(user = USERS.ann) {
      const res = await app.inject({ method: 'POST', url: '/login', payload: user });
      if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
      return sessionCookieOf(res);
    },
  };
}

/** The error code the dashboard logged for the most recent refused or failed request. */
export function lastErrorCode(logs: Record<string, unknown>[]): unknown {
  return [...logs].reverse().find((l) => typeof l.code === 'string')?.code;
}

export function sessionCookieOf(res: LightMyRequestResponse): string {
  const cookie = res.cookies.find((c) => c.name === 'chatlytics_session');
  if (!cookie) throw new Error('no session cookie set');
  return `chatlytics_session=${cookie.value}`;
}
