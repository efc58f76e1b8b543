import type { SegmentFilter } from './segment.js';
import { EUR_RATES } from '@chatlytics/events';
import { sqlFile, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { statsQueryParams } from './event-stats-repository.js';
import { toInt } from './numbers.js';
import type { StatsWindow } from './window.js';

/** One half of V (chatted or not) as stats_cart.sql sums it; abandoned_value unrounded (EUR). */
export interface CartHalf {
  users: number;
  users_added_to_cart: number;
  users_went_to_cart: number;
  users_purchased: number;
  users_added_and_purchased: number;
  users_abandoned: number;
  abandoned_value: number;
}

/** What one conversation token did in W (stats_topics.sql). */
export interface TopicToken {
  inV: boolean;
  added: boolean;
  /** EUR value of its added_to_cart events in W, unrounded. */
  cartValue: number;
  /** Its counted purchases in W: epoch ms and EUR revenue. */
  purchases: { at: number; revenue: number }[];
}

const CART_FIELDS = ['users', 'users_added_to_cart', 'users_went_to_cart', 'users_purchased', 'users_added_and_purchased', 'users_abandoned', 'abandoned_value'] as const;
export const EMPTY_CART_HALF: CartHalf = Object.fromEntries(CART_FIELDS.map((k) => [k, 0])) as unknown as CartHalf;

/** The static EUR table as the two bound arrays of shared/cart_value.sql (one currency, one rate, in the same order). */
const EUR_PARAMS = { eur_currencies: Object.keys(EUR_RATES), eur_rates: Object.values(EUR_RATES) };

/**
 * A bound parameter travels in the URL to a ClickHouse server (at most 1 MiB there, the default
 * http_max_uri_size, and in the HTTP bridge), so a long token list is sent in batches of at most
 * this many URL bytes. Each batch reads the window again (the token is no key column): batches
 * are as large as the URL allows, so a shop pays one read per ~10,000 conversation visitors.
 */
const TOKEN_BATCH_BYTES = 800_000;

/** A bound on one token's bytes in the URL's `param_tokens=['a','b']`. */
export const tokenUrlBytes = (token: string) => Buffer.byteLength(token) * 3 + 12;

export function tokenBatches(tokens: readonly string[], maxBytes = TOKEN_BATCH_BYTES): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let bytes = 0;
  for (const token of tokens) {
    // Quoted, comma-separated and percent-encoded in the URL: at most 3 bytes per byte, plus the quotes and comma.
    const size = tokenUrlBytes(token);
    if (batch.length > 0 && bytes + size > maxBytes) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(token);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** The cart statistic's and revenue by topic's reads of tracking events, on both engines. */
export function createCartStatsRepository(clickhouse: ClickHouseEngine, opts: { tokenBatchBytes?: number } = {}) {
  return {
    /** The two halves of V: who chatted in W, and the rest. */
    async cart(chatbotId: string, w: StatsWindow, segment?: SegmentFilter): Promise<{ chatted: CartHalf; notChatted: CartHalf }> {
      const rows = await clickhouse.query<Record<string, unknown>>(sqlFile('stats_cart'), { ...statsQueryParams(chatbotId, w, segment), ...EUR_PARAMS });
      const half = (chatted: boolean): CartHalf => {
        const row = rows.find((r) => (toInt(r.chatted) === 1) === chatted);
        return row ? Object.fromEntries(CART_FIELDS.map((k) => [k, toInt(row[k])])) as unknown as CartHalf : { ...EMPTY_CART_HALF };
      };
      return { chatted: half(true), notChatted: half(false) };
    },

    /** What each of `tokens` did in W; a token without rows in W is absent. */
    async topicTokens(chatbotId: string, w: StatsWindow, tokens: readonly string[]): Promise<Map<string, TopicToken>> {
      const out = new Map<string, TopicToken>();
      const params = { ...statsQueryParams(chatbotId, w), ...EUR_PARAMS };
      for (const batch of tokenBatches(tokens, opts.tokenBatchBytes)) {
        const rows = await clickhouse.query<Record<string, unknown>>(sqlFile('stats_topics'), { ...params, tokens: batch });
        for (const r of rows) {
          const times = (r.purchase_times_ms as unknown[]).map(toInt);
          const revenues = (r.purchase_revenues as unknown[]).map(toInt);
          out.set(String(r.token), {
            inV: toInt(r.in_v) === 1,
            added: toInt(r.added) === 1,
            cartValue: toInt(r.cart_value),
            purchases: times.map((at, i) => ({ at, revenue: revenues[i]! })),
          });
        }
      }
      return out;
    },
  };
}

export type CartStatsRepository = ReturnType<typeof createCartStatsRepository>;
