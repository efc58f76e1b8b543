/**
 * Test harness of the password reset suites (password-reset*.test.ts, mail*.test.ts,
 * browser*.test.ts): the dashboard as the entry point builds it, on a real database of the
 * given variant, seeded with two accounts; a movable clock; the outbox as the mailbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { loadConfig, loggerOptions, type Config } from '@chatlytics/core';
import type { Postgres } from '@chatlytics/postgres';
import type { DatabaseVariant, TestDatabase } from '@chatlytics/postgres/testing';
import dashboardApp from '../src/app.js';
import { hashPassword, TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import type { PasswordResetTuning } from '../src/password-reset/index.js';
import { createAccountRepository, createCredentialRepository, createUserRepository } from '../src/repositories/index.js';
import { OUTBOX_DIR, type OutboxMail } from '../src/mail/transport.js';

export const APP_URL = 'http://localhost:3000';
export const START = new Date('2026-03-01T12:00:00.000Z');
export const ANN = { email: 'Ann@Shop-A.test', password: 'ann-password' };
export const BOB = { email: 'bob@shop-b.test', password: 'bob-password' };
export const API_KEY = 'ck_' + 'R'.repeat(43);
const ACCOUNT_A = '0a000000-0000-4000-8000-00000000aaaa';
const ACCOUNT_B = '0b000000-0000-4000-8000-00000000bbbb';

/** Tests move time by assigning `clock.now`; the queue's own timers stay real. */
export interface TestClock { now: Date; advance(ms: number): void }
export function testClock(start = START): TestClock {
  const c = { now: new Date(start), advance(ms: number) { c.now = new Date(c.now.getTime() + ms); } };
  return c;
}

/** Fast enough that tests wait milliseconds for a mail, not the production second. */
export const FAST_MAIL: NonNullable<PasswordResetTuning['mail']> = { pollIntervalMs: 20, retryBackoffMs: 50 };

export interface ResetTestApp {
  app: FastifyInstance;
  postgres: Postgres;
  config: Config;
  clock: TestClock;
  logs: Record<string, unknown>[];
  outboxDir: string;
  /** POST /login (JSON) → the Cookie header of the new session. */
  login(user: { email: string; password: string }): Promise<string>;
}

export async function seedUsers(postgres: Postgres): Promise<void> {
  const accounts = createAccountRepository({ db: postgres.db });
  const users = createUserRepository({ db: postgres.db });
  await accounts.upsertAccount({ id: ACCOUNT_A, name: 'Shop A' });
  await accounts.upsertAccount({ id: ACCOUNT_B, name: 'Shop B' });
  await users.create({ accountId: ACCOUNT_A, email: ANN.email, passwordHash: await hashPassword(ANN.password, TEST_SCRYPT_COST) });
  await users.create({ accountId: ACCOUNT_B, email: BOB.email, passwordHash: await hashPassword(BOB.password, TEST_SCRYPT_COST) });
  await createCredentialRepository({ db: postgres.db }).createApiKey({ accountId: ACCOUNT_A, key: API_KEY });
}

/** A database of the variant, seeded, destroyed at teardown. */
export async function openSeededDatabase(t: { teardown(fn: () => unknown): void }, variant: DatabaseVariant): Promise<TestDatabase> {
  const tdb = await variant.open();
  t.teardown(() => tdb.destroy());
  await seedUsers(tdb.postgres);
  return tdb;
}

export async function buildResetApp(
  t: { teardown(fn: () => unknown): void },
  input: {
    postgres: Postgres; dataDir: string; env?: Record<string, string>; tuning?: PasswordResetTuning; clock?: TestClock;
    /** Hooks on the root instance before the dashboard is registered (they then run for its routes too). */
    beforeRegister?: (app: FastifyInstance) => void;
  },
): Promise<ResetTestApp> {
  const clock = input.clock ?? testClock();
  const logs: Record<string, unknown>[] = [];
  const stream = new Writable({ write(chunk, _enc, cb) { logs.push(JSON.parse(String(chunk))); cb(); } });
  // Start-up is not what these tests measure: on a loaded machine loading the mail templates can
  // exceed avvio's 10 s plugin default, as in helper.ts.
  const app = Fastify({ loggerInstance: pino(loggerOptions('info'), stream) as FastifyBaseLogger, pluginTimeout: 120_000 });
  input.beforeRegister?.(app);
  const config = loadConfig({ DATA_DIR: input.dataDir, APP_URL, SESSION_SECRET: 's'.repeat(40), ...input.env });
  await app.register(dashboardApp, {
    config, postgres: input.postgres, passwordCost: TEST_SCRYPT_COST, clock: () => clock.now,
    passwordReset: { ...input.tuning, mail: { ...FAST_MAIL, ...input.tuning?.mail } },
  });
  await app.ready();
  t.teardown(() => app.close());
  return {
    app, postgres: input.postgres, config, clock, logs, outboxDir: path.join(input.dataDir, OUTBOX_DIR),
    async login(user) {
      const res = await app.inject({ method: 'POST', url: '/login', payload: user });
      if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
      return cookieOf(res, 'chatlytics_session');
    },
  };
}

export function cookieOf(res: LightMyRequestResponse, name: string): string {
  const cookie = res.cookies.find((c) => c.name === name);
  if (!cookie) throw new Error(`no ${name} cookie set`);
  return `${name}=${cookie.value}`;
}

/** Join Cookie header values (session + flash) for the next request. */
export const cookies = (...values: (string | undefined)[]) => values.filter(Boolean).join('; ');

export function outbox(dir: string): (OutboxMail & { file: string })[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    .map((file) => ({ file, ...(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as OutboxMail) }));
}

/** Poll until `check` returns a value; fail after `timeoutMs` (a bound, never an assertion on speed). */
export async function waitFor<T>(what: string, check: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

/** The n-th e-mail to `to` (lower-cased), once it is in the outbox. */
export function waitForMail(dir: string, to: string, n = 1, subject?: RegExp) {
  return waitFor(`e-mail #${n} to ${to}`, () => {
    const mails = outbox(dir).filter((m) => m.to === to.toLowerCase() && (!subject || subject.test(m.subject)));
    return mails.length >= n ? mails[n - 1] : undefined;
  });
}

/** The token and e-mail of the reset link in a mail's plain text part. */
export function resetLinkOf(mail: { text: string }): { url: string; path: string; token: string; email: string } {
  const match = /(http:\/\/\S+\/reset-password\/([A-Za-z0-9_-]+)\?email=(\S+))/.exec(mail.text);
  if (!match) throw new Error(`no reset link in: ${mail.text}`);
  const url = new URL(match[1]);
  return { url: match[1], path: url.pathname + url.search, token: match[2], email: decodeURIComponent(match[3]) };
}

export const rows = <T>(r: unknown) => (r as { rows: T[] }).rows;
