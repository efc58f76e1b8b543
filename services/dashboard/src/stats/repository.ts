import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Database } from '@chatlytics/postgres';
import { createEventStatsRepository, type AbGroupTotals, type PopupRow, type PurchaseTotals } from './event-stats-repository.js';
import { createConversationStatsRepository, type StatsChatbot } from './conversation-stats-repository.js';
import { createCartStatsRepository, type CartHalf } from './cart-stats-repository.js';
import { buildTopicsReport, type TopicDimension } from './topics-report.js';
import { buildAnalysisReport, compareBytes, conversationLink } from './insights-report.js';
import { sampleRatioMismatch, twoProportionPValue, wilsonInterval } from './ab-significance.js';
import { percent, ratio, round2 } from './numbers.js';
import type { StatsWindow } from './window.js';
import { boundSourceRows, isFiltered, NO_SEGMENT, type SegmentBy, type SegmentFilter } from './segment.js';

export interface StatsRepositoryDeps {
  clickhouse: ClickHouseEngine;
  db: Database;
  /** APP_URL: base of the conversation links of the insights report (never the Host header). */
  appUrl: string;
}

/** Per the statistics definitions in services/dashboard/README.md: an insights report covers at most the 100 most recently started conversations. */
export const INSIGHTS_CONVERSATION_LIMIT = 100;
/**
 * Per the statistics definitions in services/dashboard/README.md: popup-metrics shows at most
 * this many versions. Versions are anonymous input; without a bound one batch of invented
 * versions grew a shop's analytics page by a megabyte.
 */
export const POPUP_VERSIONS_SHOWN = 50;
/** The row the versions beyond POPUP_VERSIONS_SHOWN are summed into; `other_versions` tells it from a version of that name. */
export const OTHER_POPUP_VERSIONS = '(other)';

type PopupMetricRow = PopupRow & { other_versions?: number };

/**
 * The POPUP_VERSIONS_SHOWN versions with the most displays (then opens, then version byte
 * order), still in version order, and one `(other)` row last with the exact sums of the rest.
 */
export function boundPopupRows(rows: readonly PopupRow[], shown = POPUP_VERSIONS_SHOWN): PopupMetricRow[] {
  if (rows.length <= shown) return [...rows];
  const ranked = [...rows].sort((a, b) => b.popup_displayed_count - a.popup_displayed_count
    || b.popup_opened_count - a.popup_opened_count || compareBytes(a.popup_version, b.popup_version));
  const kept = ranked.slice(0, shown).sort((a, b) => compareBytes(a.popup_version, b.popup_version));
  const rest = ranked.slice(shown);
  const other: PopupMetricRow = {
    popup_version: OTHER_POPUP_VERSIONS,
    popup_displayed_count: rest.reduce((n, r) => n + r.popup_displayed_count, 0),
    popup_opened_count: rest.reduce((n, r) => n + r.popup_opened_count, 0),
    other_versions: rest.length,
  };
  return [...kept, other];
}

/** p-values keep 6 decimals: rounded to 2, anything below 0.005 would read as 0. */
const P_VALUE_DECIMALS = 6;

/** The purchases body's funnel fields, rates and averages derived from the raw totals. */
function funnelBody(t: PurchaseTotals) {
  return {
    total_users: t.total_users,
    total_users_chatted: t.total_users_chatted,
    total_users_purchased: t.total_users_purchased,
    total_users_chatted_purchased: t.total_users_chatted_purchased,
    total_revenue_purchased: round2(t.total_revenue_purchased),
    total_revenue_chatted_purchased: round2(t.total_revenue_chatted_purchased),
    conversion_rate_with_chat: percent(t.total_users_chatted_purchased, t.total_users_chatted),
    conversion_rate_without_chat: percent(t.total_users_purchased - t.total_users_chatted_purchased, t.total_users),
    aov_with_chat: ratio(t.total_revenue_chatted_purchased, t.orders_after_chat),
    aov_without_chat: ratio(t.revenue_other, t.orders - t.orders_after_chat),
  };
}

/** The cart statistic's seven figures of a set of visitors (services/dashboard/README.md, "cart"). */
function cartFigures(h: CartHalf) {
  return {
    users_added_to_cart: h.users_added_to_cart,
    users_went_to_cart: h.users_went_to_cart,
    users_purchased: h.users_purchased,
    users_added_and_purchased: h.users_added_and_purchased,
    cart_conversion_rate: percent(h.users_added_and_purchased, h.users_added_to_cart),
    users_abandoned: h.users_abandoned,
    abandoned_value: round2(h.abandoned_value),
  };
}

/** The UTC dates `YYYY-MM-DD` from the window's first day to its last, both included. */
export function utcDays(w: StatsWindow): string[] {
  const days: string[] = [];
  for (let t = Date.UTC(w.from.getUTCFullYear(), w.from.getUTCMonth(), w.from.getUTCDate()); t <= w.to.getTime(); t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

const roundTo = (x: number, decimals: number) => Number(x.toFixed(decimals));

function abGroup(t: AbGroupTotals) {
  const ci = wilsonInterval(t.purchasers, t.visitors);
  return {
    visitors: t.visitors,
    orders: t.orders,
    conversion_rate: percent(t.purchasers, t.visitors),
    aov: ratio(t.revenue, t.orders),
    arpu: ratio(t.revenue, t.visitors),
    // Beyond the required fields (services/dashboard/README.md): the conversion rate's 95 % Wilson interval, in percent.
    conversion_rate_ci95: { lower: round2(ci.lower * 100), upper: round2(ci.upper * 100) },
  };
}

/**
 * Every statistic's body after the common `timeframe_days, start_date, end_date` fields, in
 * the documented field order. ClickHouse answers the event statistics, PostgreSQL the
 * conversation ones; rates, averages and rounding (see the statistics definitions in services/dashboard/README.md) are applied here.
 */
export function createStatsRepository(deps: StatsRepositoryDeps) {
  const events = createEventStatsRepository(deps.clickhouse);
  const convos = createConversationStatsRepository(deps.db);
  const carts = createCartStatsRepository(deps.clickhouse);

  /**
   * Revenue by topic for each of `dimensions`: C from PostgreSQL (one read: C does not depend on
   * the dimension), then what C's visitor tokens did in W from ClickHouse, matched here.
   */
  const topicsOf = async <D extends TopicDimension>(chatbotId: string, w: StatsWindow, dimensions: readonly D[]) => {
    const conversations = await convos.topicConversations(chatbotId, w);
    const did = await carts.topicTokens(chatbotId, w, [...new Set(conversations.map((c) => c.token))]);
    const link = (id: string) => conversationLink(deps.appUrl, chatbotId, id);
    return dimensions.map((dimension) => ({
      dimension, ...buildTopicsReport(conversations.map(({ lists, ...c }) => ({ ...c, items: lists[dimension] })), did, link),
    }));
  };

  return {
    chatbotOfAccount: (accountId: string, chatbotId: string): Promise<StatsChatbot | null> =>
      convos.chatbotOfAccount(accountId, chatbotId),

    /** With a segment filter: the conversations of the segment's visitor tokens only (their visitor_token). */
    async overview(chatbotId: string, w: StatsWindow, segment: SegmentFilter = NO_SEGMENT) {
      const tokens = isFiltered(segment) ? await events.segmentTokens(chatbotId, w, segment) : undefined;
      const t = await convos.overview(chatbotId, w, tokens);
      return {
        total_conversations: t.total_conversations,
        total_ai_messages: t.total_ai_messages,
        saved_hours: round2(t.capped_duration_ms / 3_600_000).toFixed(2),
      };
    },

    async engagement(chatbotId: string, w: StatsWindow, segment?: SegmentFilter) {
      const c = await events.engagement(chatbotId, w, segment);
      return {
        ...c,
        approached_ratio: percent(c.total_users_approached, c.total_users),
        opened_ratio: percent(c.total_users_opened, c.total_users),
        chatted_ratio: percent(c.total_users_chatted, c.total_users),
      };
    },

    async popupMetrics(chatbotId: string, w: StatsWindow, segment?: SegmentFilter) {
      const { rows, conversations } = await events.popupMetrics(chatbotId, w, segment);
      return {
        metrics: boundPopupRows(rows).map((r) => ({ ...r, open_rate: percent(r.popup_opened_count, r.popup_displayed_count) })),
        conversations: { ...conversations, popup_ratio: percent(conversations.from_popup, conversations.total) },
      };
    },

    async purchases(chatbot: StatsChatbot, w: StatsWindow, segment?: SegmentFilter) {
      // A chatbot without A/B test shows no A/B block: its funnel alone is a cheaper query.
      if (!chatbot.abTestEnabled) return funnelBody(await events.purchaseFunnel(chatbot.id, w, segment));
      const t = await events.purchases(chatbot.id, w, segment);
      const body = funnelBody(t);
      const { ab } = t;
      const srm = sampleRatioMismatch(ab.control.visitors, ab.test.visitors);
      return {
        ...body,
        ab_test: {
          control: abGroup(ab.control),
          test: abGroup(ab.test),
          // Beyond the required fields (services/dashboard/README.md): is the difference real, and can the split be trusted?
          comparison: {
            p_value: roundTo(twoProportionPValue(ab.control.purchasers, ab.control.visitors, ab.test.purchasers, ab.test.visitors), P_VALUE_DECIMALS),
            sample_ratio_mismatch: srm.mismatch,
            sample_ratio_p_value: roundTo(srm.pValue, P_VALUE_DECIMALS),
          },
        },
      };
    },

    /** One row per UTC day of the window, oldest first, days without events as zeros. */
    async timeseries(chatbotId: string, w: StatsWindow, segment?: SegmentFilter) {
      const byDay = new Map((await events.timeseries(chatbotId, w, segment)).map((r) => [r.day, r]));
      return {
        days: utcDays(w).map((day) => {
          const r = byDay.get(day);
          return { date: day, visitors: r?.visitors ?? 0, conversations: r?.conversations ?? 0, purchases: r?.purchases ?? 0, revenue: round2(r?.revenue ?? 0) };
        }),
      };
    },

    /** V in two halves from ClickHouse; the whole is their sum (every token of V is in exactly one). */
    async cart(chatbotId: string, w: StatsWindow, segment?: SegmentFilter) {
      const { chatted, notChatted } = await carts.cart(chatbotId, w, segment);
      const sum = Object.fromEntries(Object.keys(chatted).map((k) => [k, chatted[k as keyof CartHalf] + notChatted[k as keyof CartHalf]])) as unknown as CartHalf;
      return {
        total_users: sum.users,
        ...cartFigures(sum),
        chatted: { users: chatted.users, ...cartFigures(chatted) },
        not_chatted: { users: notChatted.users, ...cartFigures(notChatted) },
      };
    },

    topicsOf,
    topics: async (chatbotId: string, w: StatsWindow, dimension: TopicDimension) => (await topicsOf(chatbotId, w, [dimension]))[0]!,

    /** V grouped by one segment attribute: the 50 values with the most visitors, then `other`. */
    async sources(chatbotId: string, w: StatsWindow, by: SegmentBy, segment?: SegmentFilter) {
      return { by, ...boundSourceRows(await events.sources(chatbotId, w, by, segment)) };
    },

    eventsByChatbot: (chatbotIds: string[], w: StatsWindow) => events.eventsByChatbot(chatbotIds, w),

    /** Events per minute, one entry per minute of the window (the live view), empty minutes as 0. */
    async eventsPerMinute(chatbotId: string, w: StatsWindow) {
      const byMinute = new Map((await events.eventsPerMinute(chatbotId, w)).map((r) => [r.minute, r.events]));
      const minutes: { minute: string; events: number }[] = [];
      for (let t = Math.floor(w.from.getTime() / 60_000) * 60_000; t <= w.to.getTime(); t += 60_000) {
        const key = new Date(t).toISOString().slice(0, 19).replace('T', ' ');
        minutes.push({ minute: `${key.slice(0, 16)}Z`, events: byMinute.get(key) ?? 0 });
      }
      return { minutes };
    },

    async conversationInsights(chatbotId: string, w: StatsWindow) {
      const [analysed, counts] = await Promise.all([
        convos.analysedConversations(chatbotId, w, INSIGHTS_CONVERSATION_LIMIT),
        events.insightsEvents(chatbotId, w),
      ]);
      const r = buildAnalysisReport(analysed, (id) => conversationLink(deps.appUrl, chatbotId, id));
      // Documented order: the event counts sit between the analysis fields.
      return {
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
      };
    },
  };
}

export type StatsRepository = ReturnType<typeof createStatsRepository>;
