import type { Test } from 'tap';
import type { ClickHouseEngine } from '../src/types.js';
import { runMigrations } from '../src/migrations.js';
import { ClickHouseError } from '../src/errors.js';
import { toJsonEachRow } from '../src/json-each-row.js';

/**
 * One behaviour, two engines: every implementation of ClickHouseEngine must pass this
 * suite unchanged (the embedded one directly, the server one through our HTTP bridge or a
 * real server). `open` returns a fresh engine on an empty database.
 */
const ID1 = '0190a3c4-0000-7000-8000-000000000001';
const ID2 = '0190a3c4-0000-7000-8000-000000000002';
const ID3 = '0190a3c4-0000-7000-8000-000000000003';
// Characters that break naive escaping: quote, backslash, tab, newline, non-ASCII.
const TRICKY = "O'Brien \\ tab\there\nnext ü";

export function engineContract(t: Test, open: () => Promise<ClickHouseEngine>): void {
  let engine: ClickHouseEngine;
  t.before(async () => {
    engine = await open();
  });
  t.teardown(async () => {
    await engine?.close();
  });

  t.test('migrations apply once and are idempotent', async (t) => {
    const first = await runMigrations(engine);
    t.ok(first.applied.includes('0001_events'), 'events migration applied');
    const second = await runMigrations(engine);
    t.same(second.applied, [], 'nothing applied the second time');
    t.equal(second.alreadyApplied, first.applied.length + first.alreadyApplied);
    t.same(second.views, [], 'no view applied the second time');
    const tables = await engine.query<{ name: string }>(
      'SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name',
    );
    t.same(tables.map((r) => r.name), [
      'chat_clicks', 'chat_clicks_mv', 'conversation_starts', 'conversation_starts_mv', 'erased_tokens', 'event_copies', 'event_copies_mv', 'event_hour_counts', 'event_hour_counts_mv',
      'events', 'events_input_v2', 'events_input_v2_mv', 'events_rejected', 'id_slot_claims',
      'order_first_purchases', 'order_first_purchases_mv', 'order_refunds', 'orders', 'purchases', 'purchases_mv', 'retention_cutoffs',
      'schema_migrations', 'schema_views', 'sql_query_log', 'token_day_sets', 'token_day_sets_mv', 'token_hour_sets', 'token_hour_sets_mv', 'token_ids',
    ]);
    const ledger = await engine.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');
    t.same(ledger, [
      { version: 1, name: 'events' }, { version: 10, name: 'sql_query_log' }, { version: 20, name: 'events_is_bot' },
      { version: 30, name: 'order_first_purchases' }, { version: 40, name: 'events_prev_copy_at' },
      { version: 50, name: 'token_hour_sets' }, { version: 60, name: 'token_hour_purchases' },
      { version: 70, name: 'sealed_purchase_facts' }, { version: 80, name: 'token_id_index' }, { version: 90, name: 'kept_runs' },
      { version: 100, name: 'events_rejected_chatbot' }, { version: 110, name: 'drop_sealed_hours' },
      { version: 120, name: 'events_segment' }, { version: 130, name: 'insert_time_aggregates' }, { version: 140, name: 'leaner_views' },
      { version: 150, name: 'sql_query_log_statement' }, { version: 160, name: 'events_input_v2' },
      { version: 170, name: 'orders' }, { version: 180, name: 'erased_tokens_retention_cutoffs' }, { version: 190, name: 'events_holdout' }, { version: 200, name: 'orders_token_id' },
      { version: 210, name: 'chat_clicks' }, { version: 220, name: 'events_token_index' },
    ], 'recorded exactly once');
  });

  t.test('insert rows and read them back with bound parameters', async (t) => {
    await engine.command(`CREATE TABLE contract_rows (
      id UUID, name String, at DateTime64(3, 'UTC'), tags Array(String), n UInt64
    ) ENGINE = MergeTree ORDER BY id`);
    await engine.insert('contract_rows', [
      { id: ID1, name: TRICKY, at: '2026-01-02 03:04:05.678', tags: ["it's", 'a\\b'], n: 1 },
      { id: ID2, name: TRICKY, at: '2026-01-01 00:00:00.000', tags: ['x'], n: 2 },
      { id: ID3, name: 'other', at: '2026-01-03 00:00:00.000', tags: ["it's"], n: 3 },
    ]);
    const rows = await engine.query<{ id: string; name: string; at: string; tags: string[]; n: string }>(
      `SELECT id, name, at, tags, n FROM contract_rows
       WHERE name = {name:String} AND at >= {from:DateTime64(3, 'UTC')}
         AND hasAny(tags, {tags:Array(String)}) AND id IN {ids:Array(UUID)}
       ORDER BY at`,
      { name: TRICKY, from: '2026-01-02 00:00:00.000', tags: ["it's"], ids: [ID1, ID3] },
    );
    t.same(rows, [{ id: ID1, name: TRICKY, at: '2026-01-02 03:04:05.678', tags: ["it's", 'a\\b'], n: '1' }],
      'one row matches every bound condition; UInt64 arrives as a string');
    const [one] = await engine.query<{ c: string }>('SELECT count() AS c FROM contract_rows WHERE id = {id:UUID}', { id: ID2 });
    t.equal(one.c, '1', 'count() is a string, as from a server');
    const nullable = await engine.query<{ v: string | null }>('SELECT {v:Nullable(String)} AS v', { v: null });
    t.same(nullable, [{ v: null }], 'null binds as NULL');
  });

  t.test('parameters mean the same wherever they stand and whatever they hold', async (t) => {
    const [row] = await engine.query<Record<string, unknown>>(
      `SELECT '{s:String}' AS literal, {s:String} AS s, {n:UInt32} AS n, {f:Float64} AS f, {b:Bool} AS b, -- {not_a:String}
        {nums:Array(UInt32)} AS nums, {maybe:Array(Nullable(String))} AS maybe /* {nor_this:String} */`,
      { s: TRICKY, n: 42, f: 1.5, b: true, nums: [1, 2], maybe: ["it's", null] },
    );
    t.same(row, { literal: '{s:String}', s: TRICKY, n: 42, f: 1.5, b: true, nums: [1, 2], maybe: ["it's", null] },
      'placeholders in a string literal or a comment stay text');
    const [named] = await engine.query<{ c: string }>('SELECT count() AS c FROM {table:Identifier}', { table: 'contract_rows' });
    t.equal(named.c, '3', 'an Identifier parameter names a table');
    const missing = await engine.query('SELECT {absent:String} AS v', {}).catch((e: unknown) => e);
    t.equal((missing as ClickHouseError).clickhouseCode, 456, 'a missing parameter is the engine\'s own error');
    // Larger than a query's text may be (the embedded engine binds it instead of inlining).
    const ids = Array.from({ length: 6000 }, (_, i) => `0190a3c4-0000-7000-8000-${String(i).padStart(12, '0')}`);
    const [many] = await engine.query<{ c: string }>('SELECT count() AS c FROM contract_rows WHERE id IN {ids:Array(UUID)}', { ids });
    t.equal(many.c, '3', 'a 6,000-id list binds');
  });

  t.test('a prepared JSONEachRow buffer inserts as is', async (t) => {
    await engine.command('CREATE TABLE contract_buf (k String, v Float64) ENGINE = MergeTree ORDER BY k');
    await engine.insert('contract_buf', toJsonEachRow([{ k: 'a', v: 1.5 }, { k: 'b', v: -2 }]));
    t.same(await engine.query('SELECT k, v FROM contract_buf ORDER BY k'), [{ k: 'a', v: 1.5 }, { k: 'b', v: -2 }]);
  });

  t.test('a JSONCompactEachRow buffer inserts by its column list, with per-insert settings', async (t) => {
    await engine.command("CREATE TABLE contract_compact (k String, v Float64, items Array(Tuple(id String, n UInt32)), d String DEFAULT 'dflt') ENGINE = MergeTree ORDER BY k");
    const body = Buffer.from('["b",2.5,[["x",1],["y",2]]]\n["a",-1,[]]\n');
    await engine.insert('contract_compact', body, {
      format: 'JSONCompactEachRow', columns: ['k', 'v', 'items'],
      settings: { input_format_json_named_tuples_as_objects: 0, min_chunk_bytes_for_parallel_parsing: 1 << 20 },
    });
    t.same(await engine.query('SELECT k, v, items, d FROM contract_compact ORDER BY k'), [
      { k: 'a', v: -1, items: [], d: 'dflt' },
      { k: 'b', v: 2.5, items: [{ id: 'x', n: 1 }, { id: 'y', n: 2 }], d: 'dflt' },
    ]);
    await t.rejects(engine.insert('contract_compact', body, { format: 'JSONCompactEachRow' }), TypeError, 'a compact body needs its columns');
    await t.rejects(engine.insert('contract_compact', body, { format: 'JSONCompactEachRow', columns: ['k; DROP'] }), { code: 'CLICKHOUSE_004' });
  });

  t.test('a RowBinary buffer inserts by its column list; the same token lands once', async (t) => {
    await engine.command("CREATE TABLE contract_binary (id UInt32, name String, note Nullable(String)) ENGINE = MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100");
    // id UInt32 LE | name: varint length + UTF-8 | note: null flag (+ string)
    const body = Buffer.concat([
      Buffer.from([7, 0, 0, 0, 2]), Buffer.from('ok'), Buffer.from([1]),
      Buffer.from([9, 0, 0, 0, 5]), Buffer.from('été'), Buffer.from([0, 1]), Buffer.from('!'),
    ]);
    const opts = { format: 'RowBinary' as const, columns: ['id', 'name', 'note'], dedupToken: 'binary-1', settings: { optimize_on_insert: 0 } };
    await engine.insert('contract_binary', body, opts);
    await engine.insert('contract_binary', body, opts);
    t.same(await engine.query('SELECT id, name, note FROM contract_binary ORDER BY id'), [
      { id: 7, name: 'ok', note: null },
      { id: 9, name: 'été', note: '!' },
    ], 'typed values read back; the repeated insert was deduplicated');
    await t.rejects(engine.insert('contract_binary', body, { format: 'RowBinary' }), TypeError, 'a binary body needs its columns');
    // Refused either way: by our quoting guard (embedded) or as an unknown setting (server).
    await t.rejects(engine.insert('contract_binary', body, { format: 'RowBinary', columns: ['id', 'name', 'note'], settings: { bad: "x'; DROP" } }));
  });

  t.test('the same batch with the same dedup token lands once', async (t) => {
    await engine.command(`CREATE TABLE contract_dedup (k String) ENGINE = MergeTree ORDER BY k
      SETTINGS non_replicated_deduplication_window = 100`);
    const batch = [{ k: 'a' }, { k: 'b' }];
    await engine.insert('contract_dedup', batch, { dedupToken: 'batch-1' });
    await engine.insert('contract_dedup', batch, { dedupToken: 'batch-1' });
    await engine.insert('contract_dedup', toJsonEachRow(batch), { dedupToken: 'batch-1' });
    t.same(await engine.query('SELECT count() AS c FROM contract_dedup'), [{ c: '2' }], 'replays ignored');
    await engine.insert('contract_dedup', batch, { dedupToken: 'batch-2' });
    t.same(await engine.query('SELECT count() AS c FROM contract_dedup'), [{ c: '4' }], 'a new token inserts');
  });

  t.test('engine errors keep the ClickHouse code', async (t) => {
    const unknown = await engine.query('SELECT * FROM no_such_table').catch((e: unknown) => e);
    t.ok(unknown instanceof ClickHouseError, 'a coded error');
    t.equal((unknown as ClickHouseError).clickhouseCode, 60);
    t.equal((unknown as ClickHouseError).code, 'CLICKHOUSE_001');
    t.match((unknown as Error).message, /UNKNOWN_TABLE/);
    const syntax = await engine.command('SELEKT 1').catch((e: unknown) => e);
    t.equal((syntax as ClickHouseError).clickhouseCode, 62);
    const badInsert = await engine.insert('contract_buf', [{ k: 'x', v: 'not a number' }]).catch((e: unknown) => e);
    t.ok(badInsert instanceof ClickHouseError && badInsert.clickhouseCode > 0, 'bad row refused with a code');
    await t.rejects(engine.insert('bad name; DROP', []), { code: 'CLICKHOUSE_004' });
  });

  t.test('ping, then close', async (t) => {
    t.equal(await engine.ping(), true);
    await engine.close();
    await t.rejects(engine.query('SELECT 1'), { code: 'CLICKHOUSE_003' });
    t.equal(await engine.ping(), false);
    await engine.close(); // idempotent
  });
}
