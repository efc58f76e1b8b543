import Type from 'typebox';
import { HOUR_MS } from '@chatlytics/core';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { createConversationStatsRepository } from '../conversation-stats-repository.js';
import { round2 } from '../numbers.js';
import { readRows } from '../params.js';
import { Count, Window, WindowedQuery } from '../schemas.js';
import { isFiltered, type SegmentFilter } from '../segment.js';
import { defineStatistic } from '../statistic.js';
import type { StatsWindow } from '../window.js';

export const OverviewResponse = Type.Object({
  ...Window,
  total_conversations: Count,
  total_ai_messages: Count,
  saved_hours: Type.String({ description: 'Hours with 2 decimals, e.g. "3.75"' }),
});

/** The tokens of V in the segment (stats/segment_tokens.sql): a filtered overview's visitors. */
export async function segmentTokens(clickhouse: ClickHouseEngine, chatbotId: string, window: StatsWindow, segment: SegmentFilter): Promise<string[]> {
  return (await readRows(clickhouse, 'stats/segment_tokens', { chatbot: { id: chatbotId }, window, segment })).map((r) => String(r.token));
}

/**
 * Conversations, AI messages and saved hours, from PostgreSQL. With a segment filter: the
 * conversations of the segment's visitor tokens only (their visitor_token).
 */
export const overview = defineStatistic()({
  name: 'overview',
  summary: 'Conversations, AI messages and saved hours (PostgreSQL)',
  query: null,
  frame: 'days',
  compare: true,
  querystring: WindowedQuery,
  response: OverviewResponse,
  async read({ clickhouse, db }, { chatbot, window, segment }) {
    const tokens = isFiltered(segment) ? await segmentTokens(clickhouse, chatbot.id, window, segment) : undefined;
    return createConversationStatsRepository(db).overview(chatbot.id, window, tokens);
  },
  present: (t) => ({
    total_conversations: t.total_conversations,
    total_ai_messages: t.total_ai_messages,
    saved_hours: round2(t.capped_duration_ms / HOUR_MS).toFixed(2),
  }),
});
