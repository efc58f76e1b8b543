import Type, { type Static } from 'typebox';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { createConversationStatsRepository } from '../conversation-stats-repository.js';
import { StatsFormat } from '../csv.js';
import { buildAnalysisReport, conversationLink } from '../insights-report.js';
import { numbersOf, readRows } from '../params.js';
import { ChatbotId, Count, Rate } from '../schemas.js';
import { defineStatistic } from '../statistic.js';
import type { StatsWindow } from '../window.js';

/** `Ab` → `[aA][bB]`: JSON Schema patterns have no case-insensitive flag. */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join('');
const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const POSITIVE = '[0-9]*[1-9][0-9]*';
/**
 * The syntax of the insights timeframe (see the statistics definitions in services/dashboard/docs/statistics.md), so that a bad one is reported together
 * with every other bad field; parseInsightsTimeframe (window.ts) gives it its meaning.
 */
export const INSIGHTS_TIMEFRAME_PATTERN = `^\\s*(${[
  ...['day', 'week', 'month', ...MONTH_NAMES].map(anyCase),
  POSITIVE,
  '[0-9]{4}-[0-9]{2}-[0-9]{2}\\.\\.[0-9]{4}-[0-9]{2}-[0-9]{2}',
  `${POSITIVE}\\s+(${['minute', 'hour', 'day', 'week', 'month'].map(anyCase).join('|')})[sS]?`,
].join('|')})\\s*$`;

export const InsightsQuery = Type.Object({
  chatbot_id: ChatbotId,
  timeframe: Type.String({
    minLength: 1, maxLength: 50, pattern: INSIGHTS_TIMEFRAME_PATTERN,
    description: 'day | week | month | N minute(s)|hour(s)|day(s)|week(s)|month(s) | a month name | N (days) | YYYY-MM-DD..YYYY-MM-DD (whole UTC days)',
  }),
  format: StatsFormat,
});

const Ranked = Type.Array(Type.Object({
  item: Type.String(),
  count: Count,
  conversations: Type.Array(Type.String({ description: '{APP_URL}/app/{chatbot_id}/conversations/{id}' })),
}), { maxItems: 10 });

export const InsightsResponse = Type.Object({
  most_clicked_products: Ranked,
  most_talked_about_products: Ranked,
  most_frequent_intents: Ranked,
  most_common_complaints: Ranked,
  mood_percentages: Type.Object({ happy: Rate, angry: Rate, neutral: Rate }),
  outcome_percentages: Type.Object({ success: Rate, fail: Rate, neutral: Rate }),
  human_intervention_needed_percentage: Rate,
  missing_information_overview: Ranked,
  total_conversations_analyzed: Count,
  total_click_throughs: Count,
  chat_conversion: Type.Object({ ratio: Rate, total_conversions: Count, total_conversations: Count }),
  reactions: Type.Object({ likes: Count, dislikes: Count }),
  average_conversation_duration_minutes: Type.Number(),
});

/** The report's ranked lists, in the body's order. */
const RANKED_LISTS = ['most_clicked_products', 'most_talked_about_products', 'most_frequent_intents', 'most_common_complaints', 'missing_information_overview'] as const;

/** Per the statistics definitions: an insights report covers at most the 100 most recently started conversations. */
export const INSIGHTS_CONVERSATION_LIMIT = 100;

export interface InsightsEventCounts { total_click_throughs: number; likes: number; dislikes: number }

/** The ClickHouse half of the report: click-throughs and reactions in W (stats/insights_events.sql). */
export async function readInsightsEvents(clickhouse: ClickHouseEngine, chatbotId: string, window: StatsWindow): Promise<InsightsEventCounts> {
  const [row] = await readRows(clickhouse, 'stats/insights_events', { chatbot: { id: chatbotId }, window });
  return numbersOf(row, ['total_click_throughs', 'likes', 'dislikes'] as const);
}

/** The report over the analysed conversations started in the window of the insights timeframe. */
export const conversationInsights = defineStatistic()({
  name: 'conversation-insights',
  summary: 'Report over analysed conversations',
  query: 'stats/insights_events',
  frame: 'insights',
  compare: false,
  querystring: InsightsQuery,
  response: InsightsResponse,
  async read({ clickhouse, db, appUrl }, { chatbot, window }) {
    const [analysed, counts] = await Promise.all([
      createConversationStatsRepository(db).analysedConversations(chatbot.id, window, INSIGHTS_CONVERSATION_LIMIT),
      readInsightsEvents(clickhouse, chatbot.id, window),
    ]);
    return { report: buildAnalysisReport(analysed, (id) => conversationLink(appUrl, chatbot.id, id)), counts };
  },
  // Documented order: the event counts sit between the analysis fields.
  present: ({ report: r, counts }) => ({
    most_clicked_products: r.most_clicked_products,
    most_talked_about_products: r.most_talked_about_products,
    most_frequent_intents: r.most_frequent_intents,
    most_common_complaints: r.most_common_complaints,
    mood_percentages: r.mood_percentages,
    outcome_percentages: r.outcome_percentages,
    human_intervention_needed_percentage: r.human_intervention_needed_percentage,
    missing_information_overview: r.missing_information_overview,
    total_conversations_analyzed: r.total_conversations_analyzed,
    total_click_throughs: counts.total_click_throughs,
    chat_conversion: r.chat_conversion,
    reactions: { likes: counts.likes, dislikes: counts.dislikes },
    average_conversation_duration_minutes: r.average_conversation_duration_minutes,
  }),
  // One row per item of the ranked lists, in the body's order; its conversation links in one
  // cell, separated by spaces. The report's shares and counts are no item's: they stay in the JSON.
  csvTable: (body: Static<typeof InsightsResponse>) => RANKED_LISTS.flatMap((list) => body[list].map((r) => ({
    list, item: r.item, count: r.count, conversations: r.conversations.join(' '),
  }))),
});
