import { createHash } from 'node:crypto';
import { deleteOnShards } from './cluster-store.js';
import { paramsPerMonth } from './month-by-month.js';
import { pacedCommand } from './paced.js';
import { rendererAfterMigrations } from './migrations.js';
import { splitStatements } from './sql-split.js';
import { sqlFile, sqlFragment } from './sql-files.js';
import type { ClickHouseEngine } from './types.js';

/**
 * One visitor erased from ClickHouse (README.md, "Personal data"; issue: GDPR Art. 17). The
 * token is held in memory only: the lists that must outlive the erasure hold its digest.
 */

/** hex SHA-256 of `chatbot_id \0 token`: how erased_tokens and the erasure audit name a token. */
export function erasedTokenDigest(chatbotId: string, token: string): string {
  return createHash('sha256').update(chatbotId).update('\0').update(token).digest('hex');
}

/** 32-bit FNV-1a of the token's UTF-16 code units: the consumer's cheap first test (erased_tokens.prefilter). */
export function erasedTokenPrefilter(token: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) {
    h ^= token.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * How often a consumer reads `erased_tokens` again (services/consumer/src/erased-step.ts); an
 * erasure deletes rows ERASED_TOKENS_SETTLE_MS after listing the token, so every running consumer
 * drops the token's messages by then (two reads, and a flush under way).
 */
export const ERASED_TOKENS_REFRESH_MS = 5_000;
export const ERASED_TOKENS_SETTLE_MS = 2 * ERASED_TOKENS_REFRESH_MS + 2_000;

/** Lists the token as erased: from the next refresh on, the consumer and a replay drop its messages. */
export async function markTokenErased(engine: ClickHouseEngine, chatbotId: string, token: string): Promise<void> {
  await engine.insert('erased_tokens', [{ chatbot_id: chatbotId, digest: erasedTokenDigest(chatbotId, token), prefilter: erasedTokenPrefilter(token) }]);
}

/** The erased tokens, as the consumer's step tests them (erased-step.ts). */
export interface ErasedTokenList {
  /** Nothing listed: the step does nothing. */
  readonly empty: boolean;
  /** False for a token surely not listed (its prefilter hash is not): nearly every message. */
  mayHold(token: string): boolean;
  has(chatbotId: string, token: string): boolean;
}

export async function loadErasedTokens(engine: ClickHouseEngine): Promise<ErasedTokenList> {
  const rows = await engine.query<{ digest: string; prefilter: number | string }>('SELECT DISTINCT digest, prefilter FROM erased_tokens');
  const prefilters = new Set(rows.map((r) => Number(r.prefilter)));
  const digests = new Set(rows.map((r) => r.digest));
  return {
    empty: rows.length === 0,
    mayHold: (token) => prefilters.has(erasedTokenPrefilter(token)),
    has: (chatbotId, token) => digests.has(erasedTokenDigest(chatbotId, token)),
  };
}

export interface TokenErasure {
  /** Rows of `events` the token had (bots' included). */
  events: number;
  /** Its token ids, taken out of the aggregates. */
  tokenIds: number;
  /** Order numbers whose first purchase was computed again. */
  orders: number;
}

/** The erasure's own reads yield to the statistics (shared/background_priority.sql). */
const QUERY_NICE = sqlFragment('shared/background_priority');

interface Footprint { ids: string[]; hours: string[]; days: string[]; orders: string[]; months: (string | number)[]; events: string | number }

/**
 * Removes every row naming the token (privacy/erase_counts.sql, privacy/erase_token.sql), in
 * an order that can be run again after a failure half-way. Mark the token erased and wait for
 * the consumers to load the list (ERASED_TOKENS_REFRESH_MS) first, or a message in flight could
 * store a row again. `cluster`: CLICKHOUSE_CLUSTER, whose `_local` tables the mutations rewrite.
 */
export async function eraseTokenRows(
  engine: ClickHouseEngine, target: { chatbotId: string; token: string; erasureId: string }, opts: { cluster?: string; pace?: number } = {},
): Promise<TokenErasure> {
  // Paced (paced.ts): `pace` from the benchmark; the job takes the default.
  const command = pacedCommand(engine, opts.pace);
  const base = { chatbot_id: target.chatbotId, token: target.token };
  const [fp] = await engine.query<Footprint>(sqlFile('privacy/token_footprint'), base);
  const params = { ...base, ids: fp.ids.map(String), hours: fp.hours, days: fp.days, orders: fp.orders };
  // A setting takes no bound parameter: the id is checked to be a plain word first.
  if (!/^[A-Za-z0-9-]{1,64}$/.test(target.erasureId)) throw new Error('erasure id must be a UUID-like word');
  await command(`${sqlFile('privacy/erase_counts')}\nSETTINGS insert_deduplication_token = 'erase:${target.erasureId}', ${QUERY_NICE}`, base);
  const render = rendererAfterMigrations({ cluster: opts.cluster, database: engine.database });
  for (const statement of splitStatements(sqlFile('privacy/erase_token'))) {
    // A statement over an empty list would match nothing: skipped.
    if (/\{ids:/.test(statement) && params.ids.length === 0) continue;
    if (/\{orders:/.test(statement) && params.orders.length === 0) continue;
    // The lightweight DELETE of `events` runs on every shard's local table (a Distributed table refuses it).
    const sqls = render(statement).filter((r) => !r.skipped).map((r) => deleteOnShards(r.sql, opts.cluster));
    for (const bound of paramsPerMonth(statement, params, fp.months)) {
      for (const sql of sqls) await command(sql, bound);
    }
  }
  return { events: Number(fp.events), tokenIds: fp.ids.length, orders: fp.orders.length };
}
