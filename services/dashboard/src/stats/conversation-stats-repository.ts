import { and, asc, desc, eq, gte, isNotNull, lte, ne, sql, type SQL } from 'drizzle-orm';
import { chatbots, conversationAnalyses, conversations, messages, type Database } from '@chatlytics/postgres';
import type { AnalysedConversation } from './insights-report.js';
import type { TopicConversation, TopicDimension } from './topics-report.js';

/** A conversation of C with every dimension's list (C does not depend on the dimension). */
export type TopicConversationLists = Omit<TopicConversation, 'items'> & { lists: Record<TopicDimension, string[]> };
import type { StatsWindow } from './window.js';

export interface StatsChatbot {
  id: string;
  abTestEnabled: boolean;
  /** The holdout's share of visitors (the lift statistic); absent: 0. */
  holdoutPercent?: number;
  /** Where purchases and revenue come from (docs/statistics.md, "Revenue source"); 'tracker' when absent. */
  revenueSource?: 'tracker' | 'orders';
  /** The attribution window of the 'orders' source, days (default 7). */
  attributionWindowDays?: number;
}

export interface OverviewTotals {
  total_conversations: number;
  total_ai_messages: number;
  /** Sum over counted conversations of min(last − first message, 1.5 h), in milliseconds. */
  capped_duration_ms: number;
}

export interface ConversationStatsRepository {
  /** The chatbot when it belongs to the account, else null (the caller answers 404). */
  chatbotOfAccount(accountId: string, chatbotId: string): Promise<StatsChatbot | null>;
  /** `visitorTokens`: only the conversations of these visitors (a segment filter); all when absent. */
  overview(chatbotId: string, window: StatsWindow, visitorTokens?: readonly string[]): Promise<OverviewTotals>;
  /** The insights report's conversations: analysed, started in the window, most recent first. */
  analysedConversations(chatbotId: string, window: StatsWindow, limit: number): Promise<AnalysedConversation[]>;
  /** Revenue by topic's C: analysed, started in the window, with a visitor token (no limit), oldest first, with each dimension's items. */
  topicConversations(chatbotId: string, window: StatsWindow): Promise<TopicConversationLists[]>;
}

/** The analysis column each `dimension` of revenue by topic reads. */
const DIMENSION_COLUMNS = {
  intent: conversationAnalyses.intents,
  product: conversationAnalyses.talkedAboutProducts,
  clicked_product: conversationAnalyses.clickedProducts,
  complaint: conversationAnalyses.complaints,
  missing_information: conversationAnalyses.missingInformation,
} as const satisfies Record<TopicDimension, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Per the statistics definitions in services/dashboard/docs/statistics.md: each conversation counts at most 1.5 hours of saved time. */
const SAVED_TIME_CAP_MS = 90 * 60_000;
const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * The statistics that live in PostgreSQL (conversations, messages, analyses), through drizzle.
 * A conversation's duration is last − first of ALL its messages (not only those in the window):
 * it is the conversation's length, and a window end must not shorten it.
 */
export function createConversationStatsRepository(db: Database): ConversationStatsRepository {
  return {
    async chatbotOfAccount(accountId, chatbotId) {
      // chatbots.id is a uuid column: any other text names no chatbot (and would be a SQL error).
      if (!UUID.test(chatbotId) || !UUID.test(accountId)) return null;
      const [row] = await db
        .select({
          id: chatbots.id, settings: chatbots.settings, holdoutPercent: chatbots.holdoutPercent,
          revenueSource: chatbots.revenueSource, attributionWindowDays: chatbots.attributionWindowDays,
        })
        .from(chatbots)
        .where(and(eq(chatbots.id, chatbotId), eq(chatbots.accountId, accountId)))
        .limit(1);
      return row ? {
        id: row.id, abTestEnabled: row.settings?.abTestEnabled === true, holdoutPercent: row.holdoutPercent,
        revenueSource: row.revenueSource === 'orders' ? 'orders' : 'tracker', attributionWindowDays: row.attributionWindowDays,
      } : null;
    },

    async overview(chatbotId, w, visitorTokens) {
      if (visitorTokens?.length === 0) return { total_conversations: 0, total_ai_messages: 0, capped_duration_ms: 0 };
      const inWindow = and(gte(messages.createdAt, w.from), lte(messages.createdAt, w.to));
      const ofChatbot: SQL = visitorTokens
        // One array parameter, however many tokens (a list would hit the 65,535 parameters of a statement).
        ? and(eq(conversations.chatbotId, chatbotId), sql`${conversations.visitorToken} = any(${sql.param([...visitorTokens])}::text[])`)!
        : eq(conversations.chatbotId, chatbotId);
      const spans = db
        .select({
          conversationId: messages.conversationId,
          durationMs: sql<string>`extract(epoch from max(${messages.createdAt}) - min(${messages.createdAt})) * 1000`.as('duration_ms'),
        })
        .from(messages)
        .innerJoin(conversations, eq(conversations.id, messages.conversationId))
        .where(ofChatbot)
        .groupBy(messages.conversationId)
        .having(sql`bool_or(${messages.createdAt} between ${ts(w.from)} and ${ts(w.to)})`)
        .as('spans');
      const [totals] = await db
        .select({
          conversations: sql<string>`count(*)`,
          cappedMs: sql<string>`coalesce(sum(least(${spans.durationMs}, ${SAVED_TIME_CAP_MS})), 0)`,
        })
        .from(spans);
      const [ai] = await db
        .select({ count: sql<string>`count(*)` })
        .from(messages)
        .innerJoin(conversations, eq(conversations.id, messages.conversationId))
        .where(and(ofChatbot, eq(messages.role, 'assistant'), inWindow));
      return {
        total_conversations: Number(totals?.conversations ?? 0),
        total_ai_messages: Number(ai?.count ?? 0),
        capped_duration_ms: Number(totals?.cappedMs ?? 0),
      };
    },

    async analysedConversations(chatbotId, w, limit) {
      const durationMs = sql<string | null>`(
        select extract(epoch from max(m.created_at) - min(m.created_at)) * 1000
        from ${messages} m where m.conversation_id = ${conversations.id})`;
      const rows = await db
        .select({
          id: conversations.id,
          startedAt: conversations.startedAt,
          durationMs,
          clickedProducts: conversationAnalyses.clickedProducts,
          talkedAboutProducts: conversationAnalyses.talkedAboutProducts,
          intents: conversationAnalyses.intents,
          complaints: conversationAnalyses.complaints,
          missingInformation: conversationAnalyses.missingInformation,
          mood: conversationAnalyses.mood,
          outcome: conversationAnalyses.outcome,
          humanInterventionNeeded: conversationAnalyses.humanInterventionNeeded,
          converted: conversationAnalyses.converted,
        })
        .from(conversations)
        .innerJoin(conversationAnalyses, eq(conversationAnalyses.conversationId, conversations.id))
        .where(and(eq(conversations.chatbotId, chatbotId), gte(conversations.startedAt, w.from), lte(conversations.startedAt, w.to)))
        // id breaks ties between equal start times, so the 100 are always the same 100.
        .orderBy(desc(conversations.startedAt), desc(conversations.id))
        .limit(limit);
      return rows.map((r) => ({ ...r, durationMs: Number(r.durationMs ?? 0) }));
    },

    async topicConversations(chatbotId, w) {
      const rows = await db
        .select({ id: conversations.id, startedAt: conversations.startedAt, token: conversations.visitorToken, ...DIMENSION_COLUMNS })
        .from(conversations)
        .innerJoin(conversationAnalyses, eq(conversationAnalyses.conversationId, conversations.id))
        .where(and(
          eq(conversations.chatbotId, chatbotId), gte(conversations.startedAt, w.from), lte(conversations.startedAt, w.to),
          isNotNull(conversations.visitorToken), ne(conversations.visitorToken, ''),
        ))
        .orderBy(asc(conversations.startedAt), asc(conversations.id));
      return rows.map(({ id, startedAt, token, ...lists }) => ({ id, startedAt, token: token!, lists }));
    },
  };
}
