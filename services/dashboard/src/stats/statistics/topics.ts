import Type, { type Static } from 'typebox';
import { sqlFile, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { createConversationStatsRepository } from '../conversation-stats-repository.js';
import { conversationLink } from '../insights-report.js';
import { toInt } from '../numbers.js';
import { EUR_PARAMS, statsQueryParams } from '../params.js';
import { Count, Money, Rate, StatsQuery, Window } from '../schemas.js';
import { defineStatistic, type StatsSources } from '../statistic.js';
import { buildTopicsReport, TOPIC_ITEMS_LIMIT, TOPIC_LINKS_LIMIT, type TopicDimension, type TopicToken } from '../topics-report.js';
import type { StatsWindow } from '../window.js';

export type { TopicToken } from '../topics-report.js';

/** Spelled out, not mapped from TOPIC_DIMENSIONS: a mapped array would lose the literal types. */
const Dimension = (description?: string) => Type.Union([
  Type.Literal('intent'), Type.Literal('product'), Type.Literal('clicked_product'), Type.Literal('complaint'), Type.Literal('missing_information'),
], description ? { description } : {});

export const TopicsQuery = Type.Object({
  ...StatsQuery.properties,
  dimension: Dimension('The analysis list: intent (intents), product (talkedAboutProducts), clicked_product (clickedProducts), complaint (complaints), missing_information (missingInformation)'),
});

export const TopicsResponse = Type.Object({
  ...Window,
  dimension: Dimension(),
  items: Type.Array(Type.Object({
    item: Type.String({ description: 'Trimmed, in its earliest spelling' }),
    conversations: Type.Integer({ minimum: 0, description: 'Conversations of C naming it' }),
    visitors: Type.Integer({ minimum: 0, description: 'Their distinct visitor tokens' }),
    purchasers: Type.Integer({ minimum: 0, description: 'Of those, tokens with a counted purchase in W after the start of one of their conversations naming it' }),
    revenue: Money,
    orders: Count,
    conversion_rate: Rate,
    abandoned_carts: Type.Integer({ minimum: 0, description: 'Beyond the required fields: its visitors in A − B of "cart"' }),
    abandoned_value: Type.Number({ description: 'Beyond the required fields: EUR of their abandoned carts, 2 decimals' }),
    links: Type.Array(Type.String({ description: '{APP_URL}/app/{chatbot_id}/conversations/{id}' }), { maxItems: TOPIC_LINKS_LIMIT, description: 'Oldest first' }),
  }), { maxItems: TOPIC_ITEMS_LIMIT, description: 'By revenue descending, then conversations descending, then item (byte order)' }),
  totals: Type.Object({
    conversations: Type.Integer({ minimum: 0, description: '|C|' }),
    visitors: Count,
    purchasers: Count,
    revenue: Money,
    orders: Count,
    conversion_rate: Rate,
    abandoned_carts: Type.Integer({ minimum: 0, description: 'Beyond the required fields: visitors of the conversations naming any item, in A − B of "cart"' }),
    abandoned_value: Money,
  }, { description: 'Over C, each purchase once' }),
});

const QUERY = 'stats/topics';

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

/** What each of `tokens` did in W; a token without rows in W is absent. */
export async function readTopicTokens(
  clickhouse: ClickHouseEngine, chatbotId: string, w: StatsWindow, tokens: readonly string[], batchBytes?: number,
): Promise<Map<string, TopicToken>> {
  const out = new Map<string, TopicToken>();
  const params = { ...statsQueryParams(chatbotId, w), ...EUR_PARAMS };
  for (const batch of tokenBatches(tokens, batchBytes)) {
    const rows = await clickhouse.query<Record<string, unknown>>(sqlFile(QUERY), { ...params, tokens: batch });
    for (const r of rows) {
      out.set(String(r.token), {
        inV: toInt(r.in_v) === 1,
        added: toInt(r.added) === 1,
        cartValue: toInt(r.cart_value),
        purchases: (r.purchases as { at_ms: unknown; revenue: unknown }[]).map((p) => ({ at: toInt(p.at_ms), revenue: toInt(p.revenue) })),
      });
    }
  }
  return out;
}

/**
 * Revenue by topic for each of `dimensions`: C from PostgreSQL (one read: C does not depend on
 * the dimension), then what C's visitor tokens did in W from ClickHouse, matched here.
 */
export async function topicsOf<D extends TopicDimension>(src: StatsSources, chatbotId: string, w: StatsWindow, dimensions: readonly D[]) {
  const conversations = await createConversationStatsRepository(src.db).topicConversations(chatbotId, w);
  const did = await readTopicTokens(src.clickhouse, chatbotId, w, [...new Set(conversations.map((c) => c.token))]);
  const link = (id: string) => conversationLink(src.appUrl, chatbotId, id);
  return dimensions.map((dimension) => ({
    dimension, ...buildTopicsReport(conversations.map(({ lists, ...c }) => ({ ...c, items: lists[dimension] })), did, link),
  }));
}

/** Revenue by topic: per item of one analysis list (`dimension`), what its conversations' visitors bought. */
export const topics = defineStatistic<{ dimension: TopicDimension }>()({
  name: 'topics',
  summary: 'Revenue by topic: per item of the conversation analysis, visitors, purchasers, revenue and conversion',
  query: QUERY,
  frame: 'days',
  compare: true,
  querystring: TopicsQuery,
  response: TopicsResponse,
  args: ['dimension'],
  extra: (q) => ({ dimension: q.dimension as TopicDimension }),
  read: async (src, { chatbot, window, extra }) => (await topicsOf(src, chatbot.id, window, [extra.dimension]))[0]!,
  // The report is built with its links while reading (they need APP_URL): it is the body.
  present: (report) => report,
  csvName: (q) => ({ afterName: q.dimension === undefined ? undefined : String(q.dimension) }),
  // One row per item; its conversation links in one cell, separated by spaces.
  csvTable: (body: Static<typeof TopicsResponse>) => ({
    columns: ['dimension', 'item', 'conversations', 'visitors', 'purchasers', 'revenue', 'orders', 'conversion_rate', 'abandoned_carts', 'abandoned_value', 'links'],
    rows: body.items.map(({ links, ...item }) => ({ dimension: body.dimension, ...item, links: links.join(' ') })),
  }),
});
