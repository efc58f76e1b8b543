import { randomUUID } from 'node:crypto';
import { sqlFile } from './sql-files.js';
import { claimRunSlot, createTokenIdStore, KnownTokenIds, TokenIdAllocator, type TokenIdRow, type TokenIdStore } from './token-ids.js';
import type { ClickHouseEngine } from './types.js';
import { LOCAL_SUFFIX } from './cluster-ddl.js';
import { storeCluster } from './cluster-store.js';

const TARGETS_SQL = sqlFile('verify/token_id_targets');
/** Tokens per statement: their texts and ids travel as parameters. */
const CHUNK = 5000;

export interface TokenIdRepair {
  /** Tokens whose rows or `token_ids` entry changed. */
  tokens: number;
  /** The chatbot days holding rows of those tokens: their aggregates carry the old ids (repairDays). */
  days: { chatbotId: string; day: string }[];
}

/**
 * The token-id rule made true again for one chatbot (clickhouse/README.md, "Token ids"): every
 * token keeps the smallest id `token_ids` holds for it (else the smallest its rows carry); where
 * that id names several tokens, the one whose rows began earliest keeps it and the others get new
 * ids in a slot claimed for this repair; `token_ids` then holds exactly the kept ids, and the rows
 * of the changed tokens carry them (a mutation of `events`). The aggregates of the days those rows
 * are in still carry the old ids: the caller repairs those days. Writers keep the ids they know in
 * memory, so this runs while no writer runs (the CLI refuses it beside a running server).
 */
export async function repairTokenIds(engine: ClickHouseEngine, chatbotId: string): Promise<TokenIdRepair> {
  const targets = await engine.query<{ token: string; id: string; needs_new_id: boolean | number }>(TARGETS_SQL, { chatbot_id: chatbotId });
  if (targets.length === 0) return { tokens: 0, days: [] };
  const final = new Map(targets.map((t) => [t.token, BigInt(t.id)]));
  const fresh = targets.filter((t) => t.needs_new_id === true || t.needs_new_id === 1);
  if (fresh.length > 0) {
    const slot = await claimRunSlot(engine, `repair:${randomUUID()}`);
    // A store that knows no token: every one asked gets a new id of the slot.
    const numbering: TokenIdStore = {
      lookup: async (refs) => refs.map(() => undefined),
      tops: createTokenIdStore(engine).tops,
      insert: async () => undefined,
    };
    const allocator = new TokenIdAllocator(numbering, new KnownTokenIds(), slot);
    const { ids } = await allocator.assign(fresh.map((t) => ({ key: t.token, chatbot: chatbotId, token: t.token })));
    fresh.forEach((t, i) => final.set(t.token, ids[i]));
  }

  const tokens = [...final.keys()];
  const days = new Set<string>();
  // On a cluster the mutations run on the shards' local tables (a Distributed table takes none).
  const cluster = await storeCluster(engine);
  const onShards = (table: string) => (cluster ? `${table}${LOCAL_SUFFIX} ON CLUSTER ${cluster}` : table);
  for (let i = 0; i < tokens.length; i += CHUNK) {
    const chunk = tokens.slice(i, i + CHUNK);
    const ids = chunk.map((t) => final.get(t)!.toString());
    const p = { chatbot_id: chatbotId, tokens: chunk, ids };
    for (const r of await engine.query<{ day: string }>(
      'SELECT DISTINCT toString(toDate(received_at)) AS day FROM events WHERE chatbot_id = {chatbot_id:String} AND token IN {tokens:Array(String)}', p)) days.add(r.day);
    // The kept ids first, then the others deleted: a writer looking a token up meanwhile finds one.
    const rows: Omit<TokenIdRow, 'key'>[] = chunk.map((token, k) => ({ chatbot_id: chatbotId, token, token_id: BigInt(ids[k]) }));
    await engine.insert('token_ids', rows.map((r) => ({ ...r, token_id: r.token_id.toString() })));
    await engine.command(
      `ALTER TABLE ${onShards('token_ids')} DELETE WHERE chatbot_id = {chatbot_id:String} AND token IN {tokens:Array(String)} `
        + 'AND token_id != transform(token, {tokens:Array(String)}, CAST({ids:Array(String)}, \'Array(UInt64)\'), toUInt64(0)) SETTINGS mutations_sync = 2', p);
    await engine.command(
      `ALTER TABLE ${onShards('events')} UPDATE token_id = transform(token, {tokens:Array(String)}, CAST({ids:Array(String)}, \'Array(UInt64)\'), token_id) `
        + 'WHERE chatbot_id = {chatbot_id:String} AND token IN {tokens:Array(String)} AND NOT is_bot SETTINGS mutations_sync = 2', p);
    // The shop's orders carry their token's id as their writer found it (migration 0200): the new one.
    await engine.command(
      `ALTER TABLE ${onShards('orders')} UPDATE token_id = transform(token, {tokens:Array(String)}, CAST({ids:Array(String)}, 'Array(UInt64)'), token_id) `
        + 'WHERE chatbot_id = {chatbot_id:String} AND token IN {tokens:Array(String)} SETTINGS mutations_sync = 2', p);
  }
  return { tokens: tokens.length, days: [...days].sort().map((day) => ({ chatbotId, day })) };
}
