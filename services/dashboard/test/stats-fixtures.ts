/**
 * Test plumbing of the statistics suites: real engines (embedded chdb with the checked-in
 * migrations, the HTTP bridge + server client, PGlite or a PostgreSQL server) loaded with
 * generated data.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { pino } from 'pino';
import type { StoredEvent } from '@chatlytics/events';
import {
  CLICKHOUSE_HTTP_MAX_URI_BYTES, clickhouseHttp, createChdbEngine, createEventRowsWriter, createServerEngine, ID_SLOTS, runMigrations, type ClickHouseEngine,
  type EventRowsWriter,
} from '@chatlytics/clickhouse';
import {
  accounts, chatbots, conversationAnalyses, conversations, messages, type Database,
} from '@chatlytics/postgres';
import type { GeneratedConversation } from '@chatlytics/testkit';

export const silentLog = pino({ level: 'silent' });

export interface ClickHouseVariants {
  path: string;
  embedded: ClickHouseEngine;
  /** createServerEngine against the HTTP bridge plugin over the same data directory. */
  server: ClickHouseEngine;
  close(): Promise<void>;
}

/**
 * Embedded engine + the bridge on a random local port, both on one fresh data directory.
 * Not read-only: the server engine creates its database on start, as against a real server.
 */
export async function openClickHouse(): Promise<ClickHouseVariants> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-stats-ch-'));
  const embedded = await createChdbEngine({ path: dir, database: 'analytics', log: silentLog });
  await runMigrations(embedded);
  const bridge = Fastify({ logger: false, http: { maxHeaderSize: CLICKHOUSE_HTTP_MAX_URI_BYTES } });
  await bridge.register(clickhouseHttp, { prefix: '/clickhouse', sessionPath: dir, database: 'analytics', readonly: false });
  await bridge.listen({ port: 0, host: '127.0.0.1' });
  const { port } = bridge.server.address() as { port: number };
  const server = await createServerEngine({
    url: `http://127.0.0.1:${port}`, user: 'default', password: '', database: 'analytics', pathname: '/clickhouse', log: silentLog,
  });
  return {
    path: dir, embedded, server,
    async close() {
      await server.close();
      await bridge.close();
      await embedded.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const writers = new WeakMap<ClickHouseEngine, EventRowsWriter>();

/** Events stored as a writer outside the bus stores them (token ids numbered in a slot of the test's own). */
export async function insertEvents(engine: ClickHouseEngine, events: readonly StoredEvent[]): Promise<void> {
  let writer = writers.get(engine);
  if (!writer) {
    writer = createEventRowsWriter(engine, { slot: ID_SLOTS.runs });
    writers.set(engine, writer);
  }
  for (let i = 0; i < events.length; i += 5000) await writer.write(events.slice(i, i + 5000));
}

export interface SeedChatbot { id: string; accountId: string; abTestEnabled: boolean }

/** Accounts and chatbots, then the generated conversations with their messages and analyses. */
export async function seedPostgres(db: Database, bots: readonly SeedChatbot[], convos: readonly GeneratedConversation[]): Promise<void> {
  const accountIds = [...new Set(bots.map((b) => b.accountId))];
  await db.insert(accounts).values(accountIds.map((id) => ({ id, name: `account ${id.slice(0, 8)}` }))).onConflictDoNothing();
  await db.insert(chatbots).values(bots.map((b) => ({
    id: b.id, accountId: b.accountId, name: `bot ${b.id.slice(0, 8)}`, settings: { abTestEnabled: b.abTestEnabled },
  }))).onConflictDoNothing();
  const known = new Set(bots.map((b) => b.id));
  const mine = convos.filter((c) => known.has(c.chatbotId));
  for (let i = 0; i < mine.length; i += 200) {
    const batch = mine.slice(i, i + 200);
    await db.insert(conversations).values(batch.map((c) => ({ id: c.id, chatbotId: c.chatbotId, startedAt: new Date(c.startedAt), visitorToken: c.visitorToken ?? null })));
    const msgs = batch.flatMap((c) => c.messages.map((m) => ({ conversationId: c.id, role: m.role, content: m.content, createdAt: new Date(m.createdAt) })));
    if (msgs.length > 0) await db.insert(messages).values(msgs);
    const analyses = batch.filter((c) => c.analysis).map((c) => ({ conversationId: c.id, ...c.analysis! }));
    if (analyses.length > 0) await db.insert(conversationAnalyses).values(analyses);
  }
}
