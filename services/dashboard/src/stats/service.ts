import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Database } from '@chatlytics/postgres';
import { Errors } from '../errors.js';
import { createInFlight, createResultCache } from './cache.js';
import type { StatsChatbot } from './conversation-stats-repository.js';
import { createStatsRepository } from './repository.js';
import { createSetAsideRepository } from './set-aside.js';
import { NO_SEGMENT, segmentKey, type SegmentBy, type SegmentFilter } from './segment.js';
import {
  DEFAULT_TIMEFRAME_DAYS, frameWindow, parseFrame, parseInsightsTimeframe, previousTooEarly, previousWindow, utcDate, type StatsFrame, type StatsWindow,
} from './window.js';
import { TOPIC_DIMENSIONS, type TopicDimension } from './topics-report.js';

export interface StatsServiceOptions {
  clickhouse: ClickHouseEngine;
  db: Database;
  /** APP_URL: base of the insights report's conversation links. */
  appUrl: string;
  /** "Now" of every window; tests pin it. */
  clock?: () => Date;
  /** How long a computed statistic is reused (ms); 0 disables the cache. Default 0.5 s (services/dashboard/README.md). */
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

/**
 * Every statistic as the JSON API answers it, for one account: ownership check, window, cache.
 * The JSON routes and the app pages both read through this, so a page shows exactly the
 * numbers the API gives for the same window (and, within the cache's half second, the same answer).
 */
export function createStatsService(opts: StatsServiceOptions) {
  const repo = createStatsRepository({ clickhouse: opts.clickhouse, db: opts.db, appUrl: opts.appUrl });
  const setAside = createSetAsideRepository({ clickhouse: opts.clickhouse });
  const clock = opts.clock ?? (() => new Date());
  const cache = createResultCache({ ttlMs: opts.cacheTtlMs ?? DEFAULT_STATS_CACHE_TTL_MS });

  // The page asks for five statistics of one chatbot at once: they share one ownership lookup
  // while it is in flight (never a stored one: a chatbot that changed hands is seen at once).
  const lookups = createInFlight<StatsChatbot | null>();
  /** The account's chatbot, or 404: another account's chatbot must look like no chatbot at all. */
  const ownChatbot = async (accountId: string, chatbotId: string): Promise<StatsChatbot> => {
    const chatbot = await lookups.get(`${accountId}/${chatbotId}`, () => repo.chatbotOfAccount(accountId, chatbotId));
    if (!chatbot) throw Errors.notFound();
    return chatbot;
  };
  // The account is part of the key although ownership was just checked: one account's
  // answer is never served to another, even if a chatbot changed hands.
  const cached = <T>(accountId: string, stat: string, chatbotId: string, timeframe: string | number, compute: () => Promise<T>) =>
    cache.get(JSON.stringify([accountId, chatbotId, stat, timeframe]), compute);

  const windowed = <T extends object>(days: number, w: StatsWindow, body: T) =>
    ({ timeframe_days: days, start_date: utcDate(w.from), end_date: utcDate(w.to), ...body });

  /** The frame of a JSON query (window.ts parseFrame): a bad one is a 422 naming its fields. */
  const frameOf = (q: { timeframe?: number; from?: string; to?: string }): StatsFrame => {
    const parsed = parseFrame(q, clock());
    if (!parsed.ok) throw Errors.validation(parsed.errors);
    return parsed.frame;
  };

  /**
   * A statistic of one chatbot over the last `days` days or a checked date range, cached per
   * account. `at`: the window's "now" when the caller asks several statistics of one window (the
   * page): its blocks then cover the same milliseconds.
   */
  const daysStat = async <T extends object>(
    accountId: string, chatbotId: string, frame: StatsFrame, at: Date | undefined, period: Period, stat: string,
    load: (chatbot: StatsChatbot, w: StatsWindow) => Promise<T>, keyExtra: (c: StatsChatbot) => string = () => '',
    segment: SegmentFilter = NO_SEGMENT,
  ) => {
    const chatbot = await ownChatbot(accountId, chatbotId);
    // A filtered answer is another answer: the segment is part of the key (after the frame, so an unfiltered key is unchanged).
    const frameKey = (typeof frame === 'number' ? String(frame) : `${frame.from}..${frame.to}`) + segmentKey(segment);
    // The previous period goes through the same cache, under a key of its own.
    const periodKey = period === 'previous' ? 'previous:' : '';
    return cached(accountId, stat, chatbotId, `${periodKey}${frameKey}${keyExtra(chatbot)}`, async () => {
      const current = frameWindow(frame, at ?? clock());
      const { days, window: w } = period === 'previous' ? previousWindow(current) : current;
      return windowed(days, w, await load(chatbot, w));
    });
  };

  /**
   * `compare=previous`: the statistic over `W` and over the period before it, asked at once (the
   * engines' connections run them side by side) from one "now", so the two windows meet exactly
   * (within the cache's half second when one of them is an answer the cache kept).
   * The answer is the statistic's own body plus `previous`, the same body over the previous period.
   */
  const withPrevious = async <T extends object>(frame: StatsFrame, one: (at: Date, period: Period) => Promise<T>, at?: Date): Promise<T & { previous: T }> => {
    const now = at ?? clock();
    if (previousTooEarly(frameWindow(frame, now))) throw Errors.validation({ compare: [PREVIOUS_TOO_EARLY] });
    const [current, previous] = await Promise.all([one(now, 'current'), one(now, 'previous')]);
    return { ...current, previous };
  };

  return {
    ownChatbot,
    frameOf,
    withPrevious,
    // `segment`: the optional filters source / utm_campaign / device (segment.ts).
    overview: (accountId: string, chatbotId: string, frame: StatsFrame, at?: Date, period: Period = 'current', segment?: SegmentFilter) =>
      daysStat(accountId, chatbotId, frame, at, period, 'overview', (c, w) => repo.overview(c.id, w, segment), undefined, segment),
    engagement: (accountId: string, chatbotId: string, frame: StatsFrame, at?: Date, period: Period = 'current', segment?: SegmentFilter) =>
      daysStat(accountId, chatbotId, frame, at, period, 'engagement', (c, w) => repo.engagement(c.id, w, segment), undefined, segment),
    popupMetrics: (accountId: string, chatbotId: string, frame: StatsFrame, at?: Date, period: Period = 'current', segment?: SegmentFilter) =>
      daysStat(accountId, chatbotId, frame, at, period, 'popup-metrics', (c, w) => repo.popupMetrics(c.id, w, segment), undefined, segment),
    timeseries: (accountId: string, chatbotId: string, frame: StatsFrame, at?: Date, period: Period = 'current', segment?: SegmentFilter) =>
      daysStat(accountId, chatbotId, frame, at, period, 'timeseries', (c, w) => repo.timeseries(c.id, w, segment), undefined, segment),
    // abTestEnabled changes the body's shape: it belongs in the key.
    purchases: (accountId: string, chatbotId: string, frame: StatsFrame, at?: Date, period: Period = 'current', segment?: SegmentFilter) =>
      daysStat(accountId, chatbotId, frame, at, period, 'purchases', (c, w) => repo.purchases(c, w, segment), (c) => `/${c.abTestEnabled}`, segment),
    /** Cart funnel and abandoned carts over V, in total and per half (chatted or not). */
    cart: (accountId: string, chatbotId: string, frame: StatsFrame, at?: Date, period: Period = 'current', segment?: SegmentFilter) =>
      daysStat(accountId, chatbotId, frame, at, period, 'cart', (c, w) => repo.cart(c.id, w, segment), undefined, segment),
    /** Revenue by topic: the dimension is part of the statistic's name, so of its cache key. */
    topics: (accountId: string, chatbotId: string, dimension: TopicDimension, frame: StatsFrame, at?: Date, period: Period = 'current') =>
      daysStat(accountId, chatbotId, frame, at, period, `topics/${dimension}`, (c, w) => repo.topics(c.id, w, dimension)),
    sources: (accountId: string, chatbotId: string, by: SegmentBy, frame: StatsFrame, at?: Date, period: Period = 'current', segment?: SegmentFilter) =>
      daysStat(accountId, chatbotId, frame, at, period, `sources/${by}`, (c, w) => repo.sources(c.id, w, by, segment), undefined, segment),
    /** Purchases accepted but set aside (implausible, unverified) in the window: the app's note under revenue. */
    setAsidePurchases: (accountId: string, chatbotId: string, frame: StatsFrame, at?: Date) =>
      daysStat(accountId, chatbotId, frame, at, 'current', 'set-aside-purchases', (c, w) => setAside.setAsidePurchases(c.id, w)),
    async conversationInsights(accountId: string, chatbotId: string, timeframe: string) {
      await ownChatbot(accountId, chatbotId);
      return cached(accountId, 'conversation-insights', chatbotId, timeframe.trim().toLowerCase(), async () => {
        const parsed = parseInsightsTimeframe(timeframe, clock());
        if (!parsed.ok) throw Errors.validation({ timeframe: [parsed.message] });
        return repo.conversationInsights(chatbotId, parsed.window);
      });
    },
    /** Revenue by topic of every dimension over the insights report's window (the insights page shows them beside its lists). */
    async topicsOfInsights(accountId: string, chatbotId: string, timeframe: string) {
      await ownChatbot(accountId, chatbotId);
      return cached(accountId, 'topics-insights', chatbotId, timeframe.trim().toLowerCase(), async () => {
        const parsed = parseInsightsTimeframe(timeframe, clock());
        if (!parsed.ok) throw Errors.validation({ timeframe: [parsed.message] });
        const all = await repo.topicsOf(chatbotId, parsed.window, TOPIC_DIMENSIONS);
        return Object.fromEntries(all.map((r) => [r.dimension, r])) as Record<TopicDimension, (typeof all)[number]>;
      });
    },
    /** Events of each chatbot in the last 24 hours (the chatbot list); the ids must be the account's own. */
    eventsLastDay: (accountId: string, chatbotIds: string[]) =>
      cached(accountId, 'events-24h', chatbotIds.join(','), 1, async () => {
        const to = clock();
        return repo.eventsByChatbot(chatbotIds, { from: new Date(to.getTime() - 86_400_000), to });
      }),
    /**
     * Events per minute of the last `minutes` minutes (the live view). Not cached: the view polls
     * every 5 s and promises numbers at most that old; the read is 30 minutes of one chatbot.
     */
    async liveEvents(accountId: string, chatbotId: string, minutes: number) {
      await ownChatbot(accountId, chatbotId);
      const to = clock();
      return repo.eventsPerMinute(chatbotId, { from: new Date(to.getTime() - minutes * 60_000), to });
    },
  };
}

export type StatsService = ReturnType<typeof createStatsService>;
