import Type, { type Static, type TSchema } from 'typebox';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { createConversationStatsRepository } from '../conversation-stats-repository.js';
import { StatsFormat } from '../csv.js';
import { buildAnalysisReport, conversationLink } from '../insights-report.js';
import { numbersOf, readRows } from '../params.js';
import { ChatbotId, Count, Money, Rate } from '../schemas.js';
import { defineStatistic } from '../statistic.js';
import { MISSING_COST_ITEMS, missingInformationCost, RANKED_LIST_OF, withMoney } from '../insights-money.js';
import { TOPIC_DIMENSIONS } from '../topics-report.js';
import { topicsOf } from './topics.js';
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

const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const Ranked = Type.Array(Type.Object({
  item: Type.String(),
  count: Count,
  conversations: Type.Array(Type.String({ description: '{APP_URL}/app/{chatbot_id}/conversations/{id}' })),
  // Revenue by topic over the same window (docs/statistics.md, "conversation-insights").
  visitors: OrNull(Type.Integer({ minimum: 0, description: 'topics: the distinct visitor tokens of the conversations naming it; null when topics has no such item' })),
  revenue: OrNull(Type.Number({ description: 'topics: EUR its visitors spent after one of those conversations, 2 decimals; null as visitors' })),
  conversion_rate: OrNull(Type.Number({ description: 'topics: purchasers / visitors × 100, 2 decimals; null as visitors' })),
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
  missing_information_cost: Type.Object({
    abandoned_carts: Type.Integer({ minimum: 0, description: 'topics (missing_information) totals: visitors of the conversations missing information, in A − B of "cart"' }),
    abandoned_value: Money,
    items: Type.Array(Type.Object({ item: Type.String(), abandoned_carts: Count, abandoned_value: Money }), {
      maxItems: MISSING_COST_ITEMS, description: 'the items of topics (missing_information) with abandoned carts, by abandoned_value descending, then abandoned_carts, then item (byte order)',
    }),
  }, { description: 'What the assistant did not know cost, over the same window' }),
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
  async read(src, { chatbot, window }) {
    const [analysed, counts, topics] = await Promise.all([
      createConversationStatsRepository(src.db).analysedConversations(chatbot.id, window, INSIGHTS_CONVERSATION_LIMIT),
      readInsightsEvents(src.clickhouse, chatbot.id, window),
      // The money beside each ranked item: revenue by topic of every list, over the same window.
      topicsOf(src, chatbot.id, window, TOPIC_DIMENSIONS),
    ]);
    return { report: buildAnalysisReport(analysed, (id) => conversationLink(src.appUrl, chatbot.id, id)), counts, topics };
  },
  // Documented order: the event counts sit between the analysis fields.
  present: ({ report: r, counts, topics }) => {
    const topic = (list: (typeof RANKED_LIST_OF)[keyof typeof RANKED_LIST_OF]) => topics.find((t) => RANKED_LIST_OF[t.dimension] === list)!;
    const ranked = (list: (typeof RANKED_LISTS)[number]) => withMoney(r[list], topic(list));
    return {
      most_clicked_products: ranked('most_clicked_products'),
      most_talked_about_products: ranked('most_talked_about_products'),
      most_frequent_intents: ranked('most_frequent_intents'),
      most_common_complaints: ranked('most_common_complaints'),
      mood_percentages: r.mood_percentages,
      outcome_percentages: r.outcome_percentages,
      human_intervention_needed_percentage: r.human_intervention_needed_percentage,
      missing_information_overview: ranked('missing_information_overview'),
      total_conversations_analyzed: r.total_conversations_analyzed,
      total_click_throughs: counts.total_click_throughs,
      chat_conversion: r.chat_conversion,
      reactions: { likes: counts.likes, dislikes: counts.dislikes },
      average_conversation_duration_minutes: r.average_conversation_duration_minutes,
      missing_information_cost: missingInformationCost(topic('missing_information_overview')),
    };
  },
  // One row per item of the ranked lists, in the body's order, with its money; then what the
  // assistant did not know cost, per item and `(total)` last. Conversation links in one cell,
  // separated by spaces. The report's shares and counts are no item's: they stay in the JSON.
  csvTable: (body: Static<typeof InsightsResponse>) => {
    const cost = body.missing_information_cost;
    const list = 'missing_information_cost';
    return {
      columns: ['list', 'item', 'count', 'visitors', 'revenue', 'conversion_rate', 'abandoned_carts', 'abandoned_value', 'conversations'],
      rows: [
        ...RANKED_LISTS.flatMap((l) => body[l].map(({ conversations, ...r }) => ({ list: l, ...r, conversations: conversations.join(' ') }))),
        ...cost.items.map((i) => ({ list, ...i })),
        { list, item: '(total)', abandoned_carts: cost.abandoned_carts, abandoned_value: cost.abandoned_value },
      ],
    };
  },
});
