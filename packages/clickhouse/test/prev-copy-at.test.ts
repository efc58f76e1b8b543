import t from 'tap';
import { createLogger } from '@chatlytics/core';
import { createChdbEngine } from '../src/chdb-engine.js';
import { runMigrations } from '../src/migrations.js';
import type { ClickHouseEngine } from '../src/types.js';
import { migrationsBefore, tempDataDir, insertEvents } from './helpers.js';

/**
 * events.prev_copy_at and the events_input view (migration 0040) against a model of them written
 * here: per insert, a non-bot row is left out when a copy of its event (same chatbot and id) at
 * the same time or later is already stored, equal rows of one insert are stored once, and a
 * stored row's prev_copy_at is the latest earlier copy among the stored rows and its insert's
 * (0 for none). Also the migration's fill for rows stored before it.
 */
interface Row { event_id: string; event: string; chatbot_id: string; received_at: string; is_bot: boolean; inserted_at?: string }
interface Stored extends Row { prev_copy_at: string }

const BOTS = ['bot-a', 'bot-b'];
const ZERO = '1970-01-01 00:00:00.000';
const uuid = (n: number) => `0190a7c0-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const at = (ms: number) => new Date(Date.UTC(2026, 9, 1) + ms).toISOString().replace('T', ' ').replace('Z', '');

/** n rows over few ids (an id is often stored several times, at the same or other times). */
function rows(n: number, salt: number, ids = 97, base = ids === 97 ? 0 : 1000): Row[] {
  return Array.from({ length: n }, (_, i) => {
    const k = (i * 7919 + salt * 104729) % 1000;
    return {
      event_id: uuid(k % ids + base),
      event: 'visitor',
      chatbot_id: BOTS[(k >> 3) % 2],
      // Spread over hours, so a later insert often holds a copy older than a stored one.
      received_at: at(((k * 31 + salt * 17) % 200) * 60_000 + (k % 3)),
      is_bot: k % 23 === 0,
      // Stored an hour ago: a rebuild recomputes rows stored before it began (less a margin
      // for inserts in flight); rows stored since keep what their insert gave them.
      inserted_at: at(-3_600_000),
    };
  });
}

const key = (r: Row) => `${r.chatbot_id} ${r.event_id}`;
const rowKey = (r: Row) => `${key(r)} ${r.received_at} ${r.is_bot}`;
const latestBefore = (times: Iterable<string>, t: string) => [...times].filter((x) => x < t).sort().pop() ?? ZERO;

/** What the view stores, insert after insert. */
class Model {
  readonly stored: Stored[] = [];
  private readonly times = new Map<string, Set<string>>();
  private readonly tokens = new Set<string>();
  /** A token seen before: the engine drops the whole insert (insert_deduplication_token). */
  insert(batch: readonly Row[], token?: string): void {
    if (token !== undefined && this.tokens.has(token)) return;
    if (token !== undefined) this.tokens.add(token);
    const seen = new Set<string>();
    const kept = batch.filter((r) => {
      const k = `${key(r)} ${r.received_at}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return r.is_bot || ![...(this.times.get(key(r)) ?? [])].some((x) => x >= r.received_at);
    });
    const block = new Map<string, string[]>();
    for (const r of kept) if (!r.is_bot) block.set(key(r), [...(block.get(key(r)) ?? []), r.received_at]);
    for (const r of kept) {
      const prev = r.is_bot ? ZERO : latestBefore([...(this.times.get(key(r)) ?? []), ...block.get(key(r))!], r.received_at);
      this.stored.push({ ...r, prev_copy_at: prev });
    }
    for (const r of kept) if (!r.is_bot) this.times.set(key(r), (this.times.get(key(r)) ?? new Set()).add(r.received_at));
  }
  /** Rows stored straight into events (before the migration): every one kept; the fill gives each its latest earlier copy. */
  load(rows: readonly Row[]): void {
    for (const r of rows) if (!r.is_bot) this.times.set(key(r), (this.times.get(key(r)) ?? new Set()).add(r.received_at));
    for (const r of rows) this.stored.push({ ...r, prev_copy_at: r.is_bot ? ZERO : latestBefore(this.times.get(key(r))!, r.received_at) });
  }
  /** The same rows, prev_copy_at over every stored row (what the fill and a rebuild compute). */
  static recomputed(stored: readonly Row[]): string[] {
    const times = new Map<string, string[]>();
    for (const r of stored) if (!r.is_bot) times.set(key(r), [...(times.get(key(r)) ?? []), r.received_at]);
    return stored.map((r) => `${rowKey(r)} ${r.is_bot ? ZERO : latestBefore(times.get(key(r))!, r.received_at)}`).sort();
  }
  lines(): string[] {
    return [...new Set(this.stored.map((r) => `${rowKey(r)} ${r.prev_copy_at}`))].sort();
  }
}

/** Distinct rows: a bot row inserted twice is two rows until parts merge (the check below). */
async function stored(engine: ClickHouseEngine): Promise<string[]> {
  const got = await engine.query<{ l: string }>(
    "SELECT DISTINCT concat(chatbot_id, ' ', toString(event_id), ' ', toString(received_at), ' ', toString(is_bot), ' ', toString(prev_copy_at)) AS l FROM events");
  return got.map((r) => r.l).sort();
}

const insert = (engine: ClickHouseEngine, batch: Row[], dedupToken?: string) => insertEvents(engine, batch, dedupToken);

t.test('prev_copy_at on the embedded engine', async (t) => {
  const engine = await createChdbEngine({ path: tempDataDir(t), database: 'copies', log: createLogger('silent') });
  t.teardown(() => engine.close());

  // The schema before 0040, rows stored straight into events, then 0040 fills prev_copy_at.
  await runMigrations(engine, migrationsBefore(t, '0040'));
  const old = [...new Map(rows(300, 1).map((r) => [rowKey(r), r])).values()];
  await engine.insert('events', old);
  // Rewriting stored rows is the backfill command's, never a start-up's (migrations-startup.test.ts).
  t.same((await runMigrations(engine, { backfill: true })).applied, ['0040_events_prev_copy_at', '0050_token_hour_sets', '0060_token_hour_purchases', '0070_sealed_purchase_facts', '0080_token_id_index', '0090_kept_runs', '0100_events_rejected_chatbot', '0110_drop_sealed_hours', '0120_events_segment', '0130_insert_time_aggregates', '0140_leaner_views', '0150_sql_query_log_statement', '0160_events_input_v2', '0170_orders', '0180_erased_tokens_retention_cutoffs', '0190_events_holdout', '0200_orders_token_id', '0210_chat_clicks', '0220_events_token_index'], 'the migration applied on top (and the later ones)');
  const filled = Model.recomputed(old);
  t.ok(filled.filter((l) => !l.endsWith(ZERO)).length > 50, 'copies among the rows stored before it');
  t.same(await stored(engine), filled, 'rows stored before the migration: each copy has its latest earlier copy');

  // Through events_input: copies in one insert and across inserts, older copies arriving after
  // newer ones, a replayed batch with its token and without one, equal rows in one insert.
  const model = new Model();
  model.load(old);
  // The last batch's ids are new: its copies are found only among each other (in the block).
  const batches: [Row[], string | undefined][] = [
    [rows(200, 2), 'b2'], [rows(200, 3), 'b3'], [rows(200, 2), 'b2'], [rows(100, 4), undefined], [rows(100, 4), undefined], [rows(100, 8, 30, 3000), 'b8'],
  ];
  batches[3][0].push(batches[3][0][0]);
  for (const [b, token] of batches) {
    await insert(engine, b, token);
    model.insert(b, token);
  }
  const expected = model.lines();
  t.ok(batches.flatMap(([b]) => b).some((r) => !r.is_bot && old.some((o) => !o.is_bot && key(o) === key(r) && o.received_at > r.received_at)),
    'some rows arrive after a later copy of theirs');
  const fresh = batches.at(-1)![0].filter((r) => !r.is_bot && !old.some((o) => key(o) === key(r)));
  t.ok(new Set(fresh.map(key)).size < fresh.length, 'copies of ids never stored before, in one insert');
  t.same(await stored(engine), expected, 'stored rows and their prev_copy_at, whatever order the copies arrived in');
  const [dups] = await engine.query<{ n: string }>('SELECT count() - uniqExact(chatbot_id, received_at, event_id) AS n FROM events WHERE NOT is_bot');
  t.equal(Number(dups.n), 0, 'no visitor row stored twice (no merge needed for count() to be right; a bot row may be, until parts merge)');

  // Later, a new copy of a stored event finds its earlier copies.
  const late = rows(50, 5);
  await insert(engine, late);
  model.insert(late);
  t.same(await stored(engine), model.lines(), 'later inserts');

});
