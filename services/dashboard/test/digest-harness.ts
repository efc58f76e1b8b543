/**
 * The weekly digest suites' world: the dashboard with both embedded engines, one account with
 * two users and two chatbots (generated events and analysed conversations), a movable clock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { createChdbEngine, runMigrations, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { users } from '@chatlytics/postgres';
import type { DatabaseVariant, TestDatabase } from '@chatlytics/postgres/testing';
import { createRng, generateConversations, generateEvents, type GeneratedConversation } from '@chatlytics/testkit';
import dashboardApp, { type DashboardOptions } from '../src/app.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import type { OutboxMail } from '../src/mail/transport.js';
import { insertEvents, silentLog } from './stats-fixtures.js';

/** Tuesday: the week's digest (Monday 07:00 UTC by default) is due. */
export const NOW = Date.parse('2026-02-10T08:00:00.000Z');
export const APP_URL = 'https://dash.example.test';
export const SECRET = 'digest-test-secret-'.padEnd(40, 'x');
const rng = createRng(4406);
export const IDS = { account: rng.uuid(), other: rng.uuid(), botA: rng.uuid(), botB: rng.uuid(), botOther: rng.uuid() };
export const KEY = `ck_${'d'.repeat(30)}`;
export const ANN = { email: 'ann@digest.test', password: 'ann-password' };
export const BEN = { email: 'ben@digest.test', password: 'ben-password' };
export const OTTO = { email: 'otto@other.test', password: 'otto-password' };

const common = { now: NOW, otherChatbotIds: [IDS.botOther] };
export const events = [
  ...generateEvents({ ...common, seed: 61, chatbotId: IDS.botA, users: 120 }),
  ...generateEvents({ ...common, seed: 62, chatbotId: IDS.botB, users: 60 }),
];
const convos = generateConversations({ ...common, seed: 63, chatbotId: IDS.botA, count: 160, spanDays: 21 });

const iso = (ms: number) => new Date(ms).toISOString();
const asFixture = (list: GeneratedConversation[], chatbotId: string) => list.filter((c) => c.chatbotId === chatbotId).map((c) => ({
  id: c.id, startedAt: iso(c.startedAt), messages: c.messages.map((m) => ({ ...m, createdAt: iso(m.createdAt) })), analysis: c.analysis,
}));
const fixture: Fixture = {
  accounts: [
    { id: IDS.account, name: 'Digest shop', users: [ANN, BEN], apiKeys: [{ name: 'ci', key: KEY }], chatbots: [
      { id: IDS.botA, name: 'Shop <assistant> & "friends"', conversations: asFixture(convos, IDS.botA) },
      { id: IDS.botB, name: 'Second bot' },
    ] },
    { id: IDS.other, name: 'Other shop', users: [OTTO], chatbots: [{ id: IDS.botOther, name: 'Other bot', conversations: asFixture(convos, IDS.botOther) }] },
  ],
};

export async function openDigestClickHouse(t: { teardown(fn: () => unknown): void }): Promise<ClickHouseEngine> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-digest-ch-'));
  const ch = await createChdbEngine({ path: dir, database: 'analytics', log: silentLog });
  t.teardown(async () => { await ch.close(); fs.rmSync(dir, { recursive: true, force: true }); });
  await runMigrations(ch);
  await insertEvents(ch, events);
  return ch;
}

export interface DigestWorld {
  tdb: TestDatabase;
  clock: { now: number };
  outbox: string;
  build(extra?: Partial<DashboardOptions>): Promise<FastifyInstance>;
}

/** A database of `variant` with the fixture; users created long before any week the tests send. */
export async function digestWorld(t: { teardown(fn: () => unknown): void }, variant: DatabaseVariant, ch: ClickHouseEngine): Promise<DigestWorld> {
  const tdb = await variant.open();
  t.teardown(() => tdb.destroy());
  await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
  await tdb.postgres.db.update(users).set({ createdAt: new Date('2025-01-01T00:00:00.000Z') });
  const clock = { now: NOW };
  const config = loadConfig({ DATA_DIR: tdb.dataDir, APP_URL, SESSION_SECRET: SECRET });
  return {
    tdb, clock, outbox: path.join(tdb.dataDir, 'mail-outbox'),
    async build(extra = {}) {
      const app: FastifyInstance = Fastify({ loggerInstance: silentLog as FastifyBaseLogger, pluginTimeout: 120_000 });
      await app.register(dashboardApp, {
        config, postgres: tdb.postgres, clickhouse: ch, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(clock.now),
        statsCacheTtlMs: 0, digest: { intervalMs: 0 }, passwordReset: { mail: { pollIntervalMs: 50 } }, ...extra,
      });
      await app.ready();
      t.teardown(() => app.close());
      return app;
    },
  };
}

export function readOutbox(dir: string): OutboxMail[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as OutboxMail);
}

export async function waitForOutbox(dir: string, count: number, timeoutMs = 30_000): Promise<OutboxMail[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const mails = readOutbox(dir);
    if (mails.length >= count || Date.now() > until) return mails;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function loginCookie(app: FastifyInstance, user: { email: string; password: string }): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/login', payload: user });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const cookie = res.cookies.find((c) => c.name === 'chatlytics_session');
  return `chatlytics_session=${cookie!.value}`;
}
