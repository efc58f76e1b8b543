import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { createConversationStatsRepository, type StatsChatbot } from './conversation-stats-repository.js';
import { NO_SEGMENT, type SegmentFilter } from './segment.js';
import type { AnyStatistic, ArgsOf, BodyOf, StatisticContext, StatsSources } from './statistic.js';
import { readInsightsEvents } from './statistics/conversation-insights.js';
import { cart, engagement, lift, popupMetrics, purchases, STATISTICS, timeseries } from './statistics/index.js';
import type { AbTotals, PurchaseTotals } from './statistics/purchases.js';
import { readTopicTokens } from './statistics/topics.js';
import type { StatsWindow } from './window.js';

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
const camel = (name: string) => name.replace(/-(.)/g, (_m, c: string) => c.toUpperCase());
type Statistics = (typeof STATISTICS)[number];

/** Each statistic (`popup-metrics` as `popupMetrics`): a chatbot, a window, the statistic's own parameters, a segment filter. */
export type StatsRepository = {
  [S in Statistics as Camel<S['name']>]: (chatbot: string | StatsChatbot, window: StatsWindow, ...args: [...ArgsOf<S>, SegmentFilter?]) => Promise<BodyOf<S>>;
} & {
  chatbotOfAccount(accountId: string, chatbotId: string): Promise<StatsChatbot | null>;
};
export type StatsRepositoryDeps = StatsSources;

/** A chatbot named by its id alone has no A/B test. */
const chatbotOf = (chatbot: string | StatsChatbot): StatsChatbot => (typeof chatbot === 'string' ? { id: chatbot, abTestEnabled: false } : chatbot);

/**
 * Every statistic's body (without the window fields) straight from its module, without the
 * runner's ownership check, frame and cache: what the oracles compare with their own reading of
 * the definitions. A new statistic appears here by being in the registry.
 */
export function createStatsRepository(deps: StatsSources): StatsRepository {
  const bodies = STATISTICS.map((s: AnyStatistic) => [camel(s.name), async (chatbot: string | StatsChatbot, window: StatsWindow, ...args: unknown[]) => {
    const extra = Object.fromEntries(s.args.map((name, i) => [name, args[i]]));
    const ctx = { chatbot: chatbotOf(chatbot), window, segment: (args[s.args.length] ?? NO_SEGMENT) as SegmentFilter, extra };
    return s.present(await s.read(deps, ctx), ctx);
  }]);
  const conversations = createConversationStatsRepository(deps.db);
  return { ...Object.fromEntries(bodies), chatbotOfAccount: conversations.chatbotOfAccount } as StatsRepository;
}

/** A ClickHouse statistic's raw figures (before rates and rounding) as a function of a chatbot id, a window and a segment. */
function rawReader<R>(clickhouse: ClickHouseEngine, s: { read(src: StatsSources, ctx: StatisticContext<object>): Promise<R> }, abTestEnabled = false) {
  // These statistics read ClickHouse alone.
  const src = { clickhouse } as StatsSources;
  return (chatbotId: string, window: StatsWindow, segment: SegmentFilter = NO_SEGMENT) =>
    s.read(src, { chatbot: { id: chatbotId, abTestEnabled }, window, segment, extra: {} });
}

/** The raw figures the alerts decide on and the benchmarks time. */
export function createEventStatsRepository(clickhouse: ClickHouseEngine) {
  return {
    engagement: rawReader(clickhouse, engagement),
    popupMetrics: rawReader(clickhouse, popupMetrics),
    /** The purchase funnel and its A/B block, from one query (stats/purchases.sql). */
    purchases: rawReader(clickhouse, purchases, true) as (chatbotId: string, w: StatsWindow, segment?: SegmentFilter) => Promise<PurchaseTotals & { ab: AbTotals }>,
    /** The purchase funnel alone, as for a chatbot without A/B test (the same query without the block). */
    purchaseFunnel: rawReader(clickhouse, purchases) as (chatbotId: string, w: StatsWindow, segment?: SegmentFilter) => Promise<PurchaseTotals>,
    timeseries: rawReader(clickhouse, timeseries),
    /** The lift's per-arm sums (stats/lift.sql), before the intervals. */
    lift: rawReader(clickhouse, lift),
    insightsEvents: (chatbotId: string, w: StatsWindow) => readInsightsEvents(clickhouse, chatbotId, w),
  };
}
export type EventStatsRepository = ReturnType<typeof createEventStatsRepository>;

/** The cart's halves and what revenue by topic's tokens did; `tokenBatchBytes` bounds the topics' token batches (tests make them small). */
export function createCartStatsRepository(clickhouse: ClickHouseEngine, opts: { tokenBatchBytes?: number } = {}) {
  return {
    cart: rawReader(clickhouse, cart),
    topicTokens: (chatbotId: string, w: StatsWindow, tokens: readonly string[]) => readTopicTokens(clickhouse, chatbotId, w, tokens, opts.tokenBatchBytes),
  };
}
