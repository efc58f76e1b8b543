import { decodeEventRows } from './row-binary-decode.js';
import { INSERT_COLUMNS } from '../src/row-binary.js';
import type { BatchHandler, BusMessage, ConsumedBatch, ConsumedMessage, ConsumerHandle, EventBus, LagReport, ReplayOptions } from '@chatlytics/bus';
import type { ClickHouseEngine, InsertOptions, QueryParams } from '@chatlytics/clickhouse';
import { AppError } from '@chatlytics/core';

/**
 * In-memory stand-ins with the contracts of packages/bus/src/types.ts and
 * packages/clickhouse/src/types.ts, for the fast unit tier. The integration tier runs the
 * same scenarios against the real engines.
 */
export class FakeBus implements EventBus {
  readonly kind = 'embedded' as const;
  readonly partitions: ConsumedMessage[][];
  readonly deadLetters: BusMessage[] = [];
  private committed: number[];
  private handle: { stopped: boolean; loops: Promise<void>[] } | undefined;
  /** As Kafka after a (re)assignment: each consume() flags its first batch of every partition. */
  flagAssignments = false;

  constructor(partitionCount = 4, private readonly maxBatch = 100) {
    this.partitions = Array.from({ length: partitionCount }, () => []);
    this.committed = Array(partitionCount).fill(0);
  }

  private partitionOf(key: string): number {
    let h = 0;
    for (const c of key) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    return h % this.partitions.length;
  }

  async publish(messages: BusMessage[]): Promise<void> {
    for (const m of messages) {
      const partition = this.partitionOf(m.key);
      const log = this.partitions[partition];
      log.push({ partition, offset: String(log.length), key: m.key, value: m.value, timestamp: Date.now() });
    }
  }

  async prepare(): Promise<void> {}

  async publishDeadLetter(messages: BusMessage[]): Promise<void> {
    this.deadLetters.push(...messages);
  }

  /** Per partition: batches in order, one at a time; a rejected batch comes back after a pause. */
  async consume(handler: BatchHandler): Promise<ConsumerHandle> {
    const state = { stopped: false, loops: [] as Promise<void>[] };
    this.handle = state;
    const loop = async (partition: number) => {
      let firstAfterAssignment = this.flagAssignments;
      while (!state.stopped) {
        const from = this.committed[partition];
        const messages = this.partitions[partition].slice(from, from + this.maxBatch);
        if (messages.length === 0) {
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        try {
          await handler({ stream: 'events', partition, messages, firstAfterAssignment });
          firstAfterAssignment = false;
          this.committed[partition] = from + messages.length;
        } catch {
          await new Promise((r) => setTimeout(r, 5));
        }
      }
    };
    state.loops = this.partitions.map((_, p) => loop(p));
    return {
      stop: async () => {
        state.stopped = true;
        await Promise.all(state.loops);
      },
    };
  }

  async replay(opts: ReplayOptions): Promise<number> {
    let delivered = 0;
    const logs: ConsumedMessage[][] = opts.stream === 'events'
      ? this.partitions
      : [this.deadLetters.map((m, i) => ({ partition: 0, offset: String(i), key: m.key, value: m.value, timestamp: Date.now() }))];
    for (const [partition, log] of logs.entries()) {
      const messages = log.filter((m) => m.timestamp >= opts.fromTime);
      for (let i = 0; i < messages.length; i += this.maxBatch) {
        const batch: ConsumedBatch = { stream: opts.stream, partition, messages: messages.slice(i, i + this.maxBatch) };
        await opts.handler(batch);
        delivered += batch.messages.length;
      }
    }
    return delivered;
  }

  async lag(): Promise<number> {
    return this.partitions.reduce((sum, log, p) => sum + log.length - this.committed[p], 0);
  }

  async lagReport(): Promise<LagReport> {
    const waiting = this.partitions.map((log, p) => log[this.committed[p]]).filter((m) => m !== undefined);
    return {
      partitions: this.partitions.map((log, p) => ({ partition: p, messages: log.length - this.committed[p] })),
      oldestUncommittedAt: waiting.length ? Math.min(...waiting.map((m) => m.timestamp)) : null,
      retentionMs: null,
    };
  }

  async ping(): Promise<void> {}
  async close(): Promise<void> {
    await this.handle?.loops;
  }
  /** Forget the commits, as a consumer whose commit never happened would find them after a crash. */
  resetCommits(to: number[] = Array(this.partitions.length).fill(0)): void {
    this.committed = [...to];
  }
}

export type InsertHook = (table: string, rows: object[], opts?: InsertOptions) => void;

/** A prepared body back to the rows ClickHouse would store. */
function fromBody(body: Buffer, opts?: InsertOptions): Record<string, unknown>[] {
  const format = opts?.format ?? 'JSONEachRow';
  if (format === 'JSONEachRow') return body.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  if (format !== 'RowBinary' || JSON.stringify(opts?.columns) !== JSON.stringify(INSERT_COLUMNS)) {
    throw new Error(`FakeClickHouse: no reader for ${format} with columns ${JSON.stringify(opts?.columns)}`);
  }
  return decodeEventRows(body, { tail: true });
}

/** A ClickHouse with tables as arrays, insert-token deduplication, and the lookup queries the consumer runs. */
export class FakeClickHouse implements ClickHouseEngine {
  readonly kind = 'embedded' as const;
  readonly database = 'analytics';
  readonly tables = new Map<string, Record<string, unknown>[]>([['events', []], ['events_rejected', []], ['token_ids', []]]);
  readonly tokens = new Set<string>();
  readonly inserts: { table: string; rows: number; token?: string }[] = [];
  readonly queries: string[] = [];
  /** Runs before the insert is applied: throw from it to simulate a failure. */
  beforeInsert: InsertHook | undefined;
  /** Runs after the insert is applied: throw from it to simulate a timeout after the write. */
  afterInsert: InsertHook | undefined;
  up = true;

  get events() { return this.tables.get('events')!; }
  get rejected() { return this.tables.get('events_rejected')!; }

  async command(): Promise<void> {}

  async query<T>(sql: string, params: QueryParams = {}): Promise<T[]> {
    if (!this.up) throw new AppError('CH_DOWN', 'ClickHouse unavailable', { retriable: true, statusCode: 503 });
    this.queries.push(sql);
    if (/count\(\) AS stored/.test(sql)) {
      // stored-time-range.sql: how many stored events fall in [from, to], and their first/last times.
      const ms = (text: unknown) => Date.parse(`${String(text).replace(' ', 'T')}Z`);
      const times = this.events.map((r) => ms(r.received_at)).filter((at) => at >= ms(params.from) && at <= ms(params.to));
      const first = times.reduce((a, b) => Math.min(a, b), Infinity);
      const last = times.reduce((a, b) => Math.max(a, b), -Infinity);
      return [{ stored: String(times.length), first_ms: String(times.length ? first : 0), last_ms: String(times.length ? last : 0) }] as T[];
    }
    if (/FROM token_ids/.test(sql) && Array.isArray(params.tokens)) {
      // ids/stored_token_ids.sql: the smallest stored id of each asked (chatbot, token).
      const asked = new Set((params.chatbots as string[]).map((c, i) => `${c}\n${(params.tokens as string[])[i]}`));
      const best = new Map<string, bigint>();
      for (const r of this.tables.get('token_ids')!) {
        const key = `${r.chatbot_id}\n${r.token}`;
        const id = BigInt(String(r.token_id));
        if (asked.has(key) && (best.get(key) ?? id) >= id) best.set(key, id);
      }
      return [...best].map(([key, id]) => ({ chatbot_id: key.split('\n')[0], token: key.split('\n')[1], token_id: id.toString() })) as T[];
    }
    if (/FROM token_ids/.test(sql) && params.low !== undefined) {
      // ids/slot_tops.sql: per chatbot, the largest id in [low, high).
      const [low, high] = [BigInt(String(params.low)), BigInt(String(params.high))];
      const chatbots = new Set(params.chatbots as string[]);
      const tops = new Map<string, bigint>();
      for (const r of this.tables.get('token_ids')!) {
        const id = BigInt(String(r.token_id));
        if (chatbots.has(String(r.chatbot_id)) && id >= low && id < high && id > (tops.get(String(r.chatbot_id)) ?? -1n)) tops.set(String(r.chatbot_id), id);
      }
      return [...tops].map(([chatbot_id, top]) => ({ chatbot_id, top: top.toString() })) as T[];
    }
    if (/FROM erased_tokens/.test(sql)) return (this.tables.get('erased_tokens') ?? []) as T[];
    if (/FROM id_slot_claims/.test(sql)) {
      // token-ids.ts claimRunSlot: the last slot claimed, then the first claim of a slot.
      const claims = this.tables.get('id_slot_claims') ?? [];
      if (params.slot === undefined) return [{ last: String(Math.max(0, ...claims.map((c) => Number(c.slot)))) }] as T[];
      return [{ first: String(claims.find((c) => Number(c.slot) === Number(params.slot))?.run ?? '') }] as T[];
    }
    if (/FROM events\b/.test(sql) && Array.isArray(params.ids)) {
      const ids = new Set((params.ids as string[]).map((s) => s.toLowerCase()));
      return this.events.filter((r) => ids.has(String(r.event_id).toLowerCase())).map((r) => ({ event_id: r.event_id })) as T[];
    }
    throw new Error(`FakeClickHouse: unexpected query ${sql}`);
  }

  async insert(into: string, input: readonly object[] | Buffer, opts?: InsertOptions): Promise<void> {
    // The consumer inserts into events_input_v2, whose view stores the rows in events (migration
    // 0160); this fake stores them there itself.
    const table = into === 'events_input_v2' ? 'events' : into;
    if (!this.up) throw new AppError('CH_DOWN', 'ClickHouse unavailable', { retriable: true, statusCode: 503 });
    const rows: Record<string, unknown>[] = Buffer.isBuffer(input)
      ? fromBody(input, opts)
      : (input as Record<string, unknown>[]).map((r) => ({ ...r }));
    this.beforeInsert?.(table, rows, opts);
    const key = opts?.dedupToken ? `${table}:${opts.dedupToken}` : undefined;
    if (key && this.tokens.has(key)) return;
    if (key) this.tokens.add(key);
    this.tables.set(table, [...(this.tables.get(table) ?? []), ...rows]);
    this.inserts.push({ table, rows: rows.length, token: opts?.dedupToken });
    this.afterInsert?.(table, rows, opts);
  }

  async ping(): Promise<boolean> { return this.up; }
  async close(): Promise<void> {}
}
