import { DAY_MS, MINUTE_MS } from '@chatlytics/core';
import { clickhouseTime, sqlFile, type ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Database } from '@chatlytics/postgres';
import { Errors } from '../http/errors.js';
import { createInFlight, createResultCache } from './cache.js';
import { createConversationStatsRepository, type StatsChatbot } from './conversation-stats-repository.js';
import { NO_SEGMENT, segmentKey, type SegmentFilter } from './segment.js';
import type { AnyStatistic, BodyOf, ExtraOf, StatsSources } from './statistic.js';
import { LIVE_WINDOW_MINUTES } from './statistics/live-events.js';
import { toInt } from './numbers.js';
import {
  DEFAULT_TIMEFRAME_DAYS, frameWindow, parseFrame, parseInsightsTimeframe, previousTooEarly, previousWindow, utcDate, type StatsFrame, type StatsWindow,
} from './window.js';

export interface StatsServiceOptions {
  clickhouse: ClickHouseEngine;
  db: Database;
  /** APP_URL: base of the insights report's conversation links. */
  appUrl: string;
  /** "Now" of every window; tests pin it. */
  clock?: () => Date;
  /** How long a computed statistic is reused (ms); 0 disables the cache. Default 0.5 s (docs/statistics.md). */
  cacheTtlMs?: number;
}

// Short enough that an acknowledged event shows in every statistic within 2 s (the consumer's
// flush takes up to 1 s in npm start): a result is reused only while it cannot be that stale.
// Long enough that a dashboard many people refresh runs each statistic about twice a second
// at most, and identical requests in flight share one query anyway.
export const DEFAULT_STATS_CACHE_TTL_MS = 500;
export { DEFAULT_TIMEFRAME_DAYS };

/** Which window of a frame a statistic covers: `W` itself, or the period before it (`compare=previous`). */
export type Period = 'current' | 'previous';
export const PREVIOUS_TOO_EARLY = 'The previous period would start before 1900-01-01.';

/** What a caller asks a statistic for. */
export interface AnswerRequest<X = object> {
  account: string;
  chatbot: string;
  /** `days` statistics: the last N days or a range of days; `insights`: the timeframe text; `live`: none. */
  frame?: StatsFrame | string;
  /** The window's "now" when the caller asks several statistics of one window (the page): its blocks then cover the same milliseconds. */
  at?: Date;
  period?: Period;
  segment?: SegmentFilter;
  extra?: X;
}

/** The window fields a `days` statistic's answer starts with. */
export interface WindowFields { timeframe_days: number; start_date: string; end_date: string }
export type Answer<S> = S extends { frame: 'days' } ? WindowFields & BodyOf<S> : BodyOf<S>;
export type Compared<S> = Answer<S> & { previous: Answer<S> };

/**
 * Every statistic as the JSON API answers it, for one account: the runner owns ownership, the
 * window, the previous period, the segment and the cache; a statistic module only reads and
 * presents. The JSON routes and the app pages both answer through here, so a page shows exactly
 * the numbers the API gives for the same window (and, within the cache's half second, the same answer).
 */
export function createStatsService(opts: StatsServiceOptions) {
  const src: StatsSources = { clickhouse: opts.clickhouse, db: opts.db, appUrl: opts.appUrl };
  const conversations = createConversationStatsRepository(opts.db);
  const clock = opts.clock ?? (() => new Date());
  const cache = createResultCache({ ttlMs: opts.cacheTtlMs ?? DEFAULT_STATS_CACHE_TTL_MS });

  // The page asks for several statistics of one chatbot at once: they share one ownership lookup
  // while it is in flight (never a stored one: a chatbot that changed hands is seen at once).
  const lookups = createInFlight<StatsChatbot | null>();
  /** The account's chatbot, or 404: another account's chatbot must look like no chatbot at all. */
  const ownChatbot = async (accountId: string, chatbotId: string): Promise<StatsChatbot> => {
    const chatbot = await lookups.get(`${accountId}/${chatbotId}`, () => conversations.chatbotOfAccount(accountId, chatbotId));
    if (!chatbot) throw Errors.notFound();
    return chatbot;
  };
  // The account is part of the key although ownership was just checked: one account's answer is
  // never served to another, even if a chatbot changed hands.
  const cached = <T>(key: unknown[], compute: () => Promise<T>) => cache.get(JSON.stringify(key), compute);

  /** The insights window of a timeframe text, or 422. */
  const insightsWindow = (timeframe: string): StatsWindow => {
    const parsed = parseInsightsTimeframe(timeframe, clock());
    if (!parsed.ok) throw Errors.validation({ timeframe: [parsed.message] });
    return parsed.window;
  };

  async function answer<S extends AnyStatistic>(s: S, r: AnswerRequest<ExtraOf<S>>): Promise<Answer<S>> {
    const chatbot = await ownChatbot(r.account, r.chatbot);
    const segment = r.segment ?? NO_SEGMENT;
    const extra = r.extra ?? s.extra({});
    const body = async (window: StatsWindow) => {
      const ctx = { chatbot, window, segment, extra };
      return s.present(await s.read(src, ctx), ctx);
    };
    const key = [r.account, r.chatbot, s.name, extra];
    if (s.frame === 'live') {
      const to = clock();
      return body({ from: new Date(to.getTime() - LIVE_WINDOW_MINUTES * MINUTE_MS), to }) as Promise<Answer<S>>;
    }
    if (s.frame === 'insights') {
      const timeframe = String(r.frame);
      return cached([...key, timeframe.trim().toLowerCase()], () => body(insightsWindow(timeframe))) as Promise<Answer<S>>;
    }
    const frame = r.frame as StatsFrame;
    const period = r.period ?? 'current';
    // A filtered answer, the previous period and the A/B switch each make another answer: all in the key.
    return cached([...key, period, frame, segmentKey(segment), s.cacheKey?.(chatbot) ?? ''], async () => {
      const current = frameWindow(frame, r.at ?? clock());
      const { days, window } = period === 'previous' ? previousWindow(current) : current;
      return { timeframe_days: days, start_date: utcDate(window.from), end_date: utcDate(window.to), ...(await body(window)) };
    }) as Promise<Answer<S>>;
  }

  return {
    answer,
    ownChatbot,

    /** The frame of a JSON query (window.ts parseFrame): a bad one is a 422 naming its fields. */
    frameOf(q: { timeframe?: number; from?: string; to?: string }): StatsFrame {
      const parsed = parseFrame(q, clock());
      if (!parsed.ok) throw Errors.validation(parsed.errors);
      return parsed.frame;
    },

    /**
     * `compare=previous`: the statistic over `W` and over the period before it, asked at once from
     * one "now", so the two windows meet exactly (within the cache's half second when one of them
     * is an answer the cache kept). The statistic's own body plus `previous`, the same body over
     * the previous period.
     */
    async compared<S extends AnyStatistic>(s: S, r: AnswerRequest<ExtraOf<S>>): Promise<Compared<S>> {
      const at = r.at ?? clock();
      if (previousTooEarly(frameWindow(r.frame as StatsFrame, at))) throw Errors.validation({ compare: [PREVIOUS_TOO_EARLY] });
      const [current, previous] = await Promise.all([answer(s, { ...r, at, period: 'current' }), answer(s, { ...r, at, period: 'previous' })]);
      return { ...current, previous } as Compared<S>;
    },

    /**
     * Events of each chatbot in the last 24 hours (the chatbot list; the ids must be the account's
     * own): an activity indicator, not a statistic (no retry lookup); absent chatbots had none.
     */
    eventsLastDay: (accountId: string, chatbotIds: string[]) =>
      cached([accountId, chatbotIds.join(','), 'events-24h'], async (): Promise<Map<string, number>> => {
        if (chatbotIds.length === 0) return new Map();
        const to = clock();
        const rows = await opts.clickhouse.query<Record<string, unknown>>(sqlFile('stats/events_by_chatbot'), {
          chatbot_ids: chatbotIds, from: clickhouseTime(new Date(to.getTime() - DAY_MS)), to: clickhouseTime(to),
        });
        return new Map(rows.map((row) => [String(row.chatbot_id), toInt(row.events)]));
      }),
  };
}

export type StatsService = ReturnType<typeof createStatsService>;
