import { percent, round2 } from './numbers.js';

/** One analysed conversation of the report, as the PostgreSQL side reads it. */
export interface AnalysedConversation {
  id: string;
  startedAt: Date;
  /** Last message − first message; 0 with fewer than two messages. */
  durationMs: number;
  clickedProducts: string[];
  talkedAboutProducts: string[];
  intents: string[];
  complaints: string[];
  missingInformation: string[];
  mood: string | null;
  outcome: string | null;
  humanInterventionNeeded: boolean;
  converted: boolean;
}

export interface RankedItem {
  item: string;
  count: number;
  conversations: string[];
}

/** Per the statistics definitions in services/dashboard/docs/statistics.md: at most 10 items per ranked list. */
export const RANKED_LIST_LIMIT = 10;
/** Per the statistics definitions in services/dashboard/docs/statistics.md: each conversation's duration is capped at 60 minutes. */
const DURATION_CAP_MS = 60 * 60_000;

/** UTF-8 byte order (= code point order), the same order ClickHouse sorts strings in. */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export const conversationLink = (appUrl: string, chatbotId: string, conversationId: string) =>
  `${appUrl}/app/${encodeURIComponent(chatbotId)}/conversations/${conversationId}`;

/**
 * One ranked list. Items are trimmed and compared case-insensitively; blank items are
 * ignored; a conversation naming an item twice counts once. Conversations are walked in
 * chronological order (start time, then id), so the shown spelling is the earliest one and
 * the links run oldest first. Sorted by count descending, then item in byte order.
 */
export function rankItems(
  conversations: readonly AnalysedConversation[],
  pick: (c: AnalysedConversation) => readonly string[],
  link: (conversationId: string) => string,
): RankedItem[] {
  const byKey = new Map<string, RankedItem>();
  for (const c of chronological(conversations)) {
    const seen = new Set<string>();
    for (const raw of pick(c)) {
      const item = raw.trim();
      const key = item.toLowerCase();
      if (item === '' || seen.has(key)) continue;
      seen.add(key);
      const entry = byKey.get(key) ?? { item, count: 0, conversations: [] };
      entry.count += 1;
      entry.conversations.push(link(c.id));
      byKey.set(key, entry);
    }
  }
  return [...byKey.values()]
    .sort((a, b) => b.count - a.count || compareBytes(a.item, b.item))
    .slice(0, RANKED_LIST_LIMIT);
}

function chronological(conversations: readonly AnalysedConversation[]): AnalysedConversation[] {
  return [...conversations].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || compareBytes(a.id, b.id));
}

/** The PostgreSQL half of the insights report (ClickHouse adds click-throughs and reactions). */
export function buildAnalysisReport(conversations: readonly AnalysedConversation[], link: (id: string) => string) {
  const n = conversations.length;
  const share = (test: (c: AnalysedConversation) => boolean) => percent(conversations.filter(test).length, n);
  const converted = conversations.filter((c) => c.converted).length;
  const cappedMinutes = conversations.reduce((sum, c) => sum + Math.min(Math.max(c.durationMs, 0), DURATION_CAP_MS), 0) / 60_000;
  return {
    most_clicked_products: rankItems(conversations, (c) => c.clickedProducts, link),
    most_talked_about_products: rankItems(conversations, (c) => c.talkedAboutProducts, link),
    most_frequent_intents: rankItems(conversations, (c) => c.intents, link),
    most_common_complaints: rankItems(conversations, (c) => c.complaints, link),
    mood_percentages: {
      happy: share((c) => c.mood === 'happy'),
      angry: share((c) => c.mood === 'angry'),
      neutral: share((c) => c.mood === 'neutral'),
    },
    outcome_percentages: {
      success: share((c) => c.outcome === 'success'),
      fail: share((c) => c.outcome === 'fail'),
      neutral: share((c) => c.outcome === 'neutral'),
    },
    human_intervention_needed_percentage: share((c) => c.humanInterventionNeeded),
    missing_information_overview: rankItems(conversations, (c) => c.missingInformation, link),
    total_conversations_analyzed: n,
    chat_conversion: { ratio: percent(converted, n), total_conversions: converted, total_conversations: n },
    average_conversation_duration_minutes: n === 0 ? 0 : round2(cappedMinutes / n),
  };
}
