import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { CLICKHOUSE_HTTP_MAX_URI_BYTES, clickhouseHttp, type ClickHouseHttpOptions } from '../src/http-bridge/index.js';
import { MIGRATIONS_DIR } from '../src/paths.js';
import { createEventRowsWriter, type EventRow, type EventRowsWriter } from '../src/event-writer.js';
import { ID_SLOTS } from '../src/token-ids.js';
import type { ClickHouseEngine } from '../src/types.js';

/** A temp data directory removed at the end of the test file (one per process: a chdb limit). */
export function tempDataDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'chatlytics-chdb-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A temp copy of the migrations that come before `version` ('0040'): the schema as it was, for a migration test. */
export function migrationsBefore(t: { teardown(fn: () => void): void }, version: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'chatlytics-migrations-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const f of readdirSync(MIGRATIONS_DIR).filter((f) => f < version)) cpSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
  return dir;
}

/** A Fastify app serving the bridge on 127.0.0.1 at a random port; returns its base URL. */
export async function startBridge(
  mounts: { prefix: string; opts: ClickHouseHttpOptions }[],
  server: { connectionTimeout?: number } = {},
): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false, http: { maxHeaderSize: CLICKHOUSE_HTTP_MAX_URI_BYTES }, ...server });
  for (const m of mounts) await app.register(clickhouseHttp, { prefix: m.prefix, ...m.opts });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url };
}

const writers = new WeakMap<ClickHouseEngine, EventRowsWriter>();

/**
 * Events into `events_input_v2` as a writer outside the bus does (event-writer.ts): new tokens
 * numbered in a slot of the test's own, stored in token_ids first. One writer per engine, so a
 * file's inserts number in one sequence.
 */
export function insertEvents(engine: ClickHouseEngine, rows: readonly object[], dedupToken?: string): Promise<void> {
  let writer = writers.get(engine);
  if (!writer) {
    writer = createEventRowsWriter(engine, { slot: ID_SLOTS.runs });
    writers.set(engine, writer);
  }
  return writer.write(rows as readonly EventRow[], { dedupToken });
}

/** No command fails (failingAt's `at`). */
export const NEVER_FAIL = -1;

/**
 * `engine` whose `at`-th command (0-based) fails once, `before` it runs (it never reached the
 * server) or `after` it ran (its answer was lost); `calls()` counts the commands issued.
 */
export function failingAt(engine: ClickHouseEngine, at: number, mode: 'before' | 'after'): { engine: ClickHouseEngine; calls: () => number } {
  let calls = 0;
  const wrapped: ClickHouseEngine = {
    kind: engine.kind, database: engine.database,
    query: (sql, params) => engine.query(sql, params),
    insert: (table, rows, opts) => engine.insert(table, rows, opts),
    ping: () => engine.ping(), close: async () => {},
    command: async (sql, params) => {
      const n = calls++;
      if (n === at && mode === 'before') throw new Error(`injected before command ${n}`);
      await engine.command(sql, params);
      if (n === at && mode === 'after') throw new Error(`injected after command ${n}`);
    },
  };
  return { engine: wrapped, calls: () => calls };
}

/**
 * Where to fail a job of `commands` commands so that every point is covered once: before each
 * command (failing after command k is failing before k + 1), and after the last (its answer lost).
 */
export function eachFailurePoint(commands: number): (readonly [number, 'before' | 'after'])[] {
  return [...Array.from({ length: commands }, (_, at) => [at, 'before'] as const), [commands - 1, 'after'] as const];
}

/** The engine with every statement sent through `command` recorded, in order. */
export function recording(inner: ClickHouseEngine): { engine: ClickHouseEngine; sent: string[] } {
  const sent: string[] = [];
  const proxy = Object.create(inner) as ClickHouseEngine;
  proxy.command = (sql, params) => {
    sent.push(sql);
    return inner.command(sql, params);
  };
  return { engine: proxy, sent };
}
