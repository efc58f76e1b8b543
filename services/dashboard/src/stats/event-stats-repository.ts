import { clickhouseTime, sqlFile, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { createInFlight, createResultCache } from './cache.js';
import { toInt } from './numbers.js';
import type { StatsWindow } from './timeframe.js';
import { dedupLookbackFrom, RETRY_LOOKBACK_SECONDS } from './retry-lookback.js';
import { sealedHoursParams, settledRun, type SealedHoursParams } from './sealed-hours.js';
import { createKeptRuns } from './kept-runs.js';

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

export interface EventStatsRepository {
  engagement(chatbotId: string, window: StatsWindow): Promise<EngagementCounts>;
  popupMetrics(chatbotId: string, window: StatsWindow): Promise<{ rows: PopupRow[]; conversations: PopupConversations }>;
  /** The purchase funnel and its A/B block, from one query (stats_purchases.sql). */
  purchases(chatbotId: string, window: StatsWindow): Promise<PurchaseTotals & { ab: AbTotals }>;
  /** The purchase funnel alone, for a chatbot without A/B test: from its rows, a cheaper query (stats_purchases_funnel.sql). */
  purchaseFunnel(chatbotId: string, window: StatsWindow): Promise<PurchaseTotals>;
  insightsEvents(chatbotId: string, window: StatsWindow): Promise<InsightsEventCounts>;
  /** The days that have rows only, oldest first (stats_timeseries.sql). */
  timeseries(chatbotId: string, window: StatsWindow): Promise<DayTotals[]>;
  /** The minutes that have events only, oldest first ('YYYY-MM-DD HH:MM:SS', UTC). */
  eventsPerMinute(chatbotId: string, window: StatsWindow): Promise<MinuteCount[]>;
  /** Events per chatbot in the window (no retry lookup: an activity indicator); absent chatbots had none. */
  eventsByChatbot(chatbotIds: string[], window: StatsWindow): Promise<Map<string, number>>;
  /** Keeps the window's sealed run for purchases ahead of its first read (the sealer does, kept-runs.ts); false when it has no settled run or runs are not kept. */
  keepRun(chatbotId: string, window: StatsWindow): Promise<boolean>;
}


const numbersOf = <K extends string>(row: Record<string, unknown> | undefined, keys: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, toInt(row?.[k])])) as Record<K, number>;

/**
 * The statistics that read tracking events: one SQL file per statistic (clickhouse/queries),
 * parameters bound by the engine. Works on both engines (embedded chdb, server client).
 */
export interface EventStatsOptions {
  /** How long the set of chatbots with sealed hours is reused (default 60 s, the sealer's interval); 0: asked on every call. */
  sealedChatbotsTtlMs?: number;
  /** Whether settled sealed runs are kept for the purchases statistic (kept-runs.ts; default true); false: read from their hours on every call. */
  keepRuns?: boolean;
}

/** The bound parameters every windowed statistic's query file takes (a `*_sealed` file also takes its sealed hours). */
export function statsQueryParams(chatbotId: string, w: StatsWindow) {
  return {
    chatbot_id: chatbotId, from: clickhouseTime(w.from), to: clickhouseTime(w.to), dedup_lookback_from: clickhouseTime(dedupLookbackFrom(w.from)),
    // The sealed hours (shared/sealed_hours.sql) are used only when sealed for this look-back.
    lookback_s: RETRY_LOOKBACK_SECONDS,
  };
}

/** A window's sealed run as the *_sealed.sql statistics are bound to it, and whether it is settled; null when it has no sealed hour. */
export interface SealedRun {
  params: SealedHoursParams;
  settled: boolean;
  /** The run's fingerprint (shared/run_fingerprint.sql), which names it where it is kept (migration 0090). */
  run: string;
}

/** Asks stats_sealed_hours.sql which hours of `w` are sealed and whether their run is settled (sealed-hours.ts). */
export async function readSealedRun(clickhouse: ClickHouseEngine, chatbotId: string, w: StatsWindow): Promise<SealedRun | null> {
  const [row] = await clickhouse.query<{ hours: string[]; late_from: string | null; run: string }>(sqlFile('stats_sealed_hours'), statsQueryParams(chatbotId, w));
  const params = sealedHoursParams(row?.hours ?? []);
  return params && { params, settled: settledRun(params, row?.late_from ?? null), run: String(row?.run) };
}

const HOUR_MS = 3_600_000;

/** Whether two answers of stats_sealed_hours.sql name the same run, read the same way. */
const sameRun = (a: SealedRun, b: SealedRun) => a.run === b.run && a.settled === b.settled
  && a.params.sealed_from === b.params.sealed_from && a.params.sealed_until === b.params.sealed_until && a.params.holes.join() === b.params.holes.join();

/** The statistics with a query for settled sealed runs (sealed-hours.ts, settledRun). */
const SETTLED_VARIANTS = new Set(['stats_purchases']);

/** The funnel's figures of a purchases answer row (stats_purchases*.sql), the A/B block aside. */
const funnelOf = (row: Record<string, unknown> | undefined): PurchaseTotals => numbersOf(row, [
  'total_users', 'total_users_chatted', 'total_users_purchased', 'total_users_chatted_purchased',
  'total_revenue_purchased', 'total_revenue_chatted_purchased', 'revenue_other', 'orders', 'orders_after_chat',
] as const);

export function createEventStatsRepository(clickhouse: ClickHouseEngine, opts: EventStatsOptions = {}): EventStatsRepository {
  // A chatbot with sealed hours is read through them (the *_sealed.sql files) by every windowed
  // statistic but the live minutes; any other chatbot's rows are read as they are, which is
  // cheaper for the small hours the sealer leaves alone. A stale set only picks the slower of two exact queries.
  const sealedCache = createResultCache({ ttlMs: opts.sealedChatbotsTtlMs ?? 60_000, maxEntries: 1 });
  const sealedChatbots = () => sealedCache.get('sealed', async () => new Set(
    (await clickhouse.query<{ chatbot_id: string }>('SELECT DISTINCT chatbot_id FROM token_hour_sets')).map((r) => r.chatbot_id)));
  // The page asks for four statistics of one window at once: they share one answer in flight
  // (never a stored one: an hour that gets a late row must stop being read as sealed at once).
  const sealedHoursInFlight = createInFlight<SealedRun | null>();
  const sealedHours = (chatbotId: string, w: StatsWindow) =>
    sealedHoursInFlight.get(`${chatbotId}/${w.from.getTime()}/${w.to.getTime()}`, () => readSealedRun(clickhouse, chatbotId, w));

  const kept = opts.keepRuns === false ? null : createKeptRuns(clickhouse);

  // A windowed statistic's rows with its window's sealed run: its sealed variant; a settled run
  // (no late arrival; holes allowed) by the `_sealed_settled` variant where it has one, and
  // purchases from the run as kept (kept-runs.ts) unless it cannot be kept.
  const readSealed = async (file: string, chatbotId: string, w: StatsWindow, sealed: SealedRun) => {
    if (kept && sealed.settled && file === 'stats_purchases') {
      const rows = await kept.purchases({ ...statsQueryParams(chatbotId, w), ...sealed.params, run: sealed.run });
      if (rows) return rows;
    }
    const variant = sealed.settled && SETTLED_VARIANTS.has(file) ? `${file}_sealed_settled` : `${file}_sealed`;
    return clickhouse.query<Record<string, unknown>>(sqlFile(variant), { ...statsQueryParams(chatbotId, w), ...sealed.params });
  };
  // The last sealed run seen per chatbot and whole hours of a window: the statistic starts with
  // it while stats_sealed_hours.sql runs, on the other core, and its answer is used only when
  // that query names the same run (the same query, then), so it is never stale. A new hour
  // sealed or a late row costs that call the guessed query's CPU, once.
  const lastRuns = new Map<string, SealedRun>();
  const guessKey = (chatbotId: string, w: StatsWindow) =>
    `${chatbotId}/${Math.ceil(w.from.getTime() / HOUR_MS)}/${Math.floor((w.to.getTime() + 1) / HOUR_MS)}`;

  // A windowed statistic's rows: through its window's sealed run when it has one (asked first,
  // stats_sealed_hours.sql), else from its rows.
  // `rowsFile`: the query for a chatbot without sealed hours, when not `file` itself.
  const read = async (file: string, chatbotId: string, w: StatsWindow, rowsFile = file) => {
    const fromRows = () => clickhouse.query<Record<string, unknown>>(sqlFile(rowsFile), statsQueryParams(chatbotId, w));
    if (!(await sealedChatbots()).has(chatbotId)) return fromRows();
    const key = guessKey(chatbotId, w);
    const guess = lastRuns.get(key);
    const guessed = guess ? readSealed(file, chatbotId, w, guess).catch(() => null) : null;
    const sealed = await sealedHours(chatbotId, w);
    lastRuns.delete(key);
    if (sealed) lastRuns.set(key, sealed);
    while (lastRuns.size > 1000) lastRuns.delete(lastRuns.keys().next().value as string);
    if (guessed && sealed && sameRun(guess!, sealed)) {
      const rows = await guessed;
      if (rows) return rows;
    }
    return sealed ? readSealed(file, chatbotId, w, sealed) : fromRows();
  };
  const one = async (file: string, chatbotId: string, w: StatsWindow, rowsFile = file) => (await read(file, chatbotId, w, rowsFile))[0];

  return {
    async engagement(chatbotId, w) {
      return numbersOf(await one('stats_engagement', chatbotId, w),
        ['total_users', 'total_users_approached', 'total_users_opened', 'total_users_chatted'] as const);
    },

    async popupMetrics(chatbotId, w) {
      // One query for both blocks (stats_popup_metrics.sql): popup rows, then conversation rows.
      const all = await read('stats_popup_metrics', chatbotId, w);
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

    async purchases(chatbotId, w) {
      const row = await one('stats_purchases', chatbotId, w);
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

    async purchaseFunnel(chatbotId, w) {
      // Sealed hours are read by the purchases statistic's sealed and kept variants, which carry the A/B block anyway.
      return funnelOf(await one('stats_purchases', chatbotId, w, 'stats_purchases_funnel'));
    },

    async insightsEvents(chatbotId, w) {
      return numbersOf(await one('stats_insights_events', chatbotId, w), ['total_click_throughs', 'likes', 'dislikes'] as const);
    },

    async timeseries(chatbotId, w) {
      const rows = await read('stats_timeseries', chatbotId, w);
      return rows.map((r) => ({ day: String(r.day), ...numbersOf(r, ['visitors', 'conversations', 'purchases', 'revenue'] as const) }));
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

    async keepRun(chatbotId, w) {
      // Asked directly, not through the set of sealed chatbots: the sealer calls this right
      // after sealing a chatbot's first hours, which that set may not know yet.
      const sealed = kept ? await readSealedRun(clickhouse, chatbotId, w) : null;
      if (!kept || !sealed?.settled) return false;
      return kept.keep({ ...statsQueryParams(chatbotId, w), ...sealed.params, run: sealed.run });
    },
  };
}
