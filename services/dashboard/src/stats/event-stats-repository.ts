import { clickhouseTime, sqlFile, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { toInt } from './numbers.js';
import type { StatsWindow } from './window.js';
import { dedupLookbackFrom } from './retry-lookback.js';
import { NO_SEGMENT, segmentParams, type SegmentBy, type SegmentFilter } from './segment.js';

/** Raw counts and sums from ClickHouse; rates and rounding are derived by the caller. */
export interface EngagementCounts {
  total_users: number;
  total_users_approached: number;
  total_users_opened: number;
  total_users_chatted: number;
}
export interface PopupRow { popup_version: string; popup_displayed_count: number; popup_opened_count: number }
export interface PopupConversations { total: number; from_popup: number; from_chat_button: number }
export interface PurchaseTotals {
  total_users: number;
  total_users_chatted: number;
  total_users_purchased: number;
  total_users_chatted_purchased: number;
  total_revenue_purchased: number;
  total_revenue_chatted_purchased: number;
  /** Revenue of the purchases not after chat. */
  revenue_other: number;
  orders: number;
  orders_after_chat: number;
}
export interface AbGroupTotals { visitors: number; orders: number; purchasers: number; revenue: number }
/** The A/B block's raw totals per group (meaningful for chatbots with abTestEnabled). */
export interface AbTotals { control: AbGroupTotals; test: AbGroupTotals }
export interface InsightsEventCounts { total_click_throughs: number; likes: number; dislikes: number }
/** One UTC day of the series; revenue unrounded (EUR). */
export interface DayTotals { day: string; visitors: number; conversations: number; purchases: number; revenue: number }
export interface MinuteCount { minute: string; events: number }
/** One value of a segment attribute (stats_sources.sql); revenue unrounded (EUR). */
export interface SourceRow { value: string; visitors: number; chatted: number; purchasers: number; chatted_purchasers: number; revenue: number }

export interface EventStatsRepository {
  engagement(chatbotId: string, window: StatsWindow, segment?: SegmentFilter): Promise<EngagementCounts>;
  popupMetrics(chatbotId: string, window: StatsWindow, segment?: SegmentFilter): Promise<{ rows: PopupRow[]; conversations: PopupConversations }>;
  /** The purchase funnel and its A/B block, from one query (stats_purchases.sql). */
  purchases(chatbotId: string, window: StatsWindow, segment?: SegmentFilter): Promise<PurchaseTotals & { ab: AbTotals }>;
  /** The purchase funnel alone, for a chatbot without A/B test (the same query; the A/B block is left out of the answer). */
  purchaseFunnel(chatbotId: string, window: StatsWindow, segment?: SegmentFilter): Promise<PurchaseTotals>;
  insightsEvents(chatbotId: string, window: StatsWindow): Promise<InsightsEventCounts>;
  /** The days that have rows only, oldest first (stats_timeseries.sql). */
  timeseries(chatbotId: string, window: StatsWindow, segment?: SegmentFilter): Promise<DayTotals[]>;
  /** One row per value of the attribute `by` among V's segments, unsorted (stats_sources.sql). */
  sources(chatbotId: string, window: StatsWindow, by: SegmentBy, segment?: SegmentFilter): Promise<SourceRow[]>;
  /** The tokens of V in the segment (stats_segment_tokens.sql): a filtered overview's visitors. */
  segmentTokens(chatbotId: string, window: StatsWindow, segment: SegmentFilter): Promise<string[]>;
  /** The minutes that have events only, oldest first ('YYYY-MM-DD HH:MM:SS', UTC). */
  eventsPerMinute(chatbotId: string, window: StatsWindow): Promise<MinuteCount[]>;
  /** Events per chatbot in the window (no retry lookup: an activity indicator); absent chatbots had none. */
  eventsByChatbot(chatbotIds: string[], window: StatsWindow): Promise<Map<string, number>>;
}


const numbersOf = <K extends string>(row: Record<string, unknown> | undefined, keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, toInt(row?.[k])])) as Record<K, number>;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The whole hours of W = [from, to] (to inclusive, to the millisecond), [hoursFrom, hoursTo),
 * and the whole UTC days among them, [daysFrom, daysTo): the statistics read whole days from the
 * daily aggregates, the other whole hours from the hourly ones, the rest of W row by row. A range
 * is empty (its two ends equal) when W holds no whole hour or day.
 */
export function wholeHours(w: StatsWindow): { hoursFrom: Date; hoursTo: Date; daysFrom: Date; daysTo: Date } {
  const hoursFrom = Math.ceil(w.from.getTime() / HOUR_MS) * HOUR_MS;
  const hoursTo = Math.max(hoursFrom, Math.floor((w.to.getTime() + 1) / HOUR_MS) * HOUR_MS);
  const daysFrom = Math.ceil(hoursFrom / DAY_MS) * DAY_MS;
  const daysTo = Math.max(daysFrom, Math.floor(hoursTo / DAY_MS) * DAY_MS);
  return { hoursFrom: new Date(hoursFrom), hoursTo: new Date(hoursTo), daysFrom: new Date(daysFrom), daysTo: new Date(daysTo) };
}

/**
 * The bound parameters every windowed statistic's query file takes (the segment's:
 * shared/segment_tokens.sql). The hourly aggregates hold every token, so a statistic filtered by
 * a segment reads the whole window row by row: its whole hours are then empty.
 */
export function statsQueryParams(chatbotId: string, w: StatsWindow, segment: SegmentFilter = NO_SEGMENT) {
  const segmentBound = segmentParams(segment);
  const { hoursFrom, hoursTo, daysFrom, daysTo } = segmentBound.segment_filtered
    ? { hoursFrom: w.from, hoursTo: w.from, daysFrom: w.from, daysTo: w.from }
    : wholeHours(w);
  const seconds = (d: Date) => clickhouseTime(d).slice(0, 19);
  return {
    chatbot_id: chatbotId, from: clickhouseTime(w.from), to: clickhouseTime(w.to), dedup_lookback_from: clickhouseTime(dedupLookbackFrom(w.from)),
    ...segmentBound,
    // Whole seconds: the aggregates' hours are DateTime.
    hours_from: seconds(hoursFrom), hours_to: seconds(hoursTo), days_from: seconds(daysFrom), days_to: seconds(daysTo),
  };
}

/** The funnel's figures of a purchases answer row (stats_purchases*.sql), the A/B block aside. */
const funnelOf = (row: Record<string, unknown> | undefined): PurchaseTotals => numbersOf(row, [
  'total_users', 'total_users_chatted', 'total_users_purchased', 'total_users_chatted_purchased',
  'total_revenue_purchased', 'total_revenue_chatted_purchased', 'revenue_other', 'orders', 'orders_after_chat',
] as const);

/**
 * The statistics that read tracking events. The rule for which query answers: each statistic
 * has one SQL file, `clickhouse/queries/stats_<statistic>.sql`, bound with statsQueryParams.
 * Works on both engines (embedded chdb, server client).
 */
export function createEventStatsRepository(clickhouse: ClickHouseEngine): EventStatsRepository {
  const read = (file: string, chatbotId: string, w: StatsWindow, segment?: SegmentFilter, extra: Record<string, string> = {}) =>
    clickhouse.query<Record<string, unknown>>(sqlFile(file), { ...statsQueryParams(chatbotId, w, segment), ...extra });
  const one = async (file: string, chatbotId: string, w: StatsWindow, segment?: SegmentFilter, extra?: Record<string, string>) =>
    (await read(file, chatbotId, w, segment, extra))[0];

  return {
    async engagement(chatbotId, w, segment) {
      return numbersOf(await one('stats_engagement', chatbotId, w, segment),
        ['total_users', 'total_users_approached', 'total_users_opened', 'total_users_chatted'] as const);
    },

    async popupMetrics(chatbotId, w, segment) {
      // One query for both blocks (stats_popup_metrics.sql): popup rows, then conversation rows.
      const all = await read('stats_popup_metrics', chatbotId, w, segment);
      const isConversation = (r: Record<string, unknown>) => toInt(r.is_conversation) === 1;
      const conversations = { total: 0, from_popup: 0, from_chat_button: 0 };
      for (const r of all.filter(isConversation)) {
        const n = toInt(r.conversations);
        conversations.total += n;
        if (r.key === 'popup') conversations.from_popup += n;
        if (r.key === 'chat_button') conversations.from_chat_button += n;
      }
      return {
        rows: all.filter((r) => !isConversation(r)).map((r) => ({
          popup_version: String(r.key),
          popup_displayed_count: toInt(r.popup_displayed_count),
          popup_opened_count: toInt(r.popup_opened_count),
        })),
        conversations,
      };
    },

    async purchases(chatbotId, w, segment) {
      const row = await one('stats_purchases', chatbotId, w, segment, { ab_block: 'true' });
      const totals = funnelOf(row);
      const ab = numbersOf(row, [
        'control_visitors', 'control_orders', 'control_purchasers', 'control_revenue',
        'test_visitors', 'test_orders', 'test_purchasers', 'test_revenue',
      ] as const);
      const group = (g: 'control' | 'test'): AbGroupTotals => ({
        visitors: ab[`${g}_visitors`], orders: ab[`${g}_orders`], purchasers: ab[`${g}_purchasers`], revenue: ab[`${g}_revenue`],
      });
      return { ...totals, ab: { control: group('control'), test: group('test') } };
    },

    async purchaseFunnel(chatbotId, w, segment) {
      return funnelOf(await one('stats_purchases', chatbotId, w, segment, { ab_block: 'false' }));
    },

    async insightsEvents(chatbotId, w) {
      return numbersOf(await one('stats_insights_events', chatbotId, w), ['total_click_throughs', 'likes', 'dislikes'] as const);
    },

    async timeseries(chatbotId, w, segment) {
      const rows = await read('stats_timeseries', chatbotId, w, segment);
      return rows.map((r) => ({ day: String(r.day), ...numbersOf(r, ['visitors', 'conversations', 'purchases', 'revenue'] as const) }));
    },

    async sources(chatbotId, w, by, segment) {
      const rows = await read('stats_sources', chatbotId, w, segment, { by });
      return rows.map((r) => ({
        value: String(r.value),
        ...numbersOf(r, ['visitors', 'chatted', 'purchasers', 'chatted_purchasers', 'revenue'] as const),
      }));
    },

    async segmentTokens(chatbotId, w, segment) {
      return (await read('stats_segment_tokens', chatbotId, w, segment)).map((r) => String(r.token));
    },

    async eventsByChatbot(chatbotIds, w) {
      if (chatbotIds.length === 0) return new Map();
      const rows = await clickhouse.query<Record<string, unknown>>(sqlFile('stats_events_by_chatbot'), {
        chatbot_ids: chatbotIds, from: clickhouseTime(w.from), to: clickhouseTime(w.to),
      });
      return new Map(rows.map((r) => [String(r.chatbot_id), toInt(r.events)]));
    },

    async eventsPerMinute(chatbotId, w) {
      const rows = await clickhouse.query<Record<string, unknown>>(sqlFile('stats_live_events'), statsQueryParams(chatbotId, w));
      return rows.map((r) => ({ minute: String(r.minute), events: toInt(r.events) }));
    },

  };
}
