import { ClickHouseError, ClickHouseErrorCode } from '@chatlytics/clickhouse';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createChdbEngine, runMigrations, type ClickHouseEngine, type InsertOptions } from '@chatlytics/clickhouse';
import { createEmbeddedBus, type ConsumedMessage, type EventBus } from '@chatlytics/bus';
import { silent } from './helpers.js';

/**
 * chdb binds ONE data directory per process: every test of a file shares `chdbPath`, and
 * each gets its own database, so they never see each other's rows.
 */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function migratedChdb(chdbPath: string, database = `consumer_${randomBytes(4).toString('hex')}`): Promise<ClickHouseEngine> {
  const engine = await createChdbEngine({ path: chdbPath, database, log: silent });
  await runMigrations(engine);
  return engine;
}

export async function counts(ch: ClickHouseEngine): Promise<{ raw: number; distinct: number }> {
  const [row] = await ch.query<{ raw: string; distinct: string }>('SELECT count() AS raw, uniqExact(event_id) AS distinct FROM events');
  return { raw: Number(row.raw), distinct: Number(row.distinct) };
}

export async function embeddedBus(dir: string, maxBatchMessages?: number): Promise<EventBus> {
  return createEmbeddedBus({ dir, log: silent, maxBatchMessages, retryBackoff: { initialMs: 5, maxMs: 50 } });
}

/** Every message of the dead-letter stream (through the bus's own replay). */
export async function deadLetters(bus: EventBus): Promise<ConsumedMessage[]> {
  const all: ConsumedMessage[] = [];
  await bus.replay({ stream: 'dead-letter', fromTime: 0, handler: async (b) => { all.push(...b.messages); } });
  return all;
}

/** A ClickHouse whose inserts into `table` go wrong in a scripted way; everything else passes through. */
export function flakyInserts(
  engine: ClickHouseEngine,
  plan: { table?: string; before?: (n: number) => Error | undefined; after?: (n: number) => Error | undefined },
): ClickHouseEngine & { attempts: number } {
  const table = plan.table ?? 'events_input_v2';
  const proxy = {
    kind: engine.kind,
    database: engine.database,
    attempts: 0,
    command: engine.command.bind(engine),
    query: engine.query.bind(engine),
    ping: engine.ping.bind(engine),
    close: engine.close.bind(engine),
    async insert(t: string, rows: readonly object[] | Buffer, opts?: InsertOptions) {
      if (t !== table) return engine.insert(t, rows, opts);
      const n = proxy.attempts++;
      const before = plan.before?.(n);
      if (before) throw before;
      await engine.insert(t, rows, opts);
      const after = plan.after?.(n);
      if (after) throw after;
    },
  };
  return proxy as ClickHouseEngine & { attempts: number };
}

/**
 * Lets the real engine refuse, like ClickHouse refuses a row it cannot parse (code 27), any
 * INSERT into `events_input_v2` whose body holds `marker`: how a test gets a refused row through the
 * consumer's typed RowBinary body, which no schema-valid event makes ClickHouse refuse.
 */
export function refusingInserts(engine: ClickHouseEngine, marker: string): ClickHouseEngine {
  const bytes = Buffer.from(marker);
  return {
    kind: engine.kind,
    database: engine.database,
    command: engine.command.bind(engine),
    query: engine.query.bind(engine),
    ping: engine.ping.bind(engine),
    close: engine.close.bind(engine),
    async insert(t: string, rows: readonly object[] | Buffer, opts?: InsertOptions) {
      if (t === 'events_input_v2' && Buffer.isBuffer(rows) && rows.includes(bytes)) {
        throw new ClickHouseError(ClickHouseErrorCode.QUERY, 'Code: 27. DB::Exception: Cannot parse input (test refusal)', { clickhouseCode: 27 });
      }
      return engine.insert(t, rows, opts);
    },
  };
}
