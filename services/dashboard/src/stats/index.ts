export { statsRoutes, type StatsRoutesOptions } from './routes.js';
export {
  createStatsService, DEFAULT_STATS_CACHE_TTL_MS, DEFAULT_TIMEFRAME_DAYS, type Answer, type AnswerRequest, type Period, type StatsService, type StatsServiceOptions,
} from './run.js';
export { createStatsRepository, createEventStatsRepository, createCartStatsRepository, type StatsRepository, type StatsRepositoryDeps, type EventStatsRepository } from './readers.js';
export { STATISTICS } from './statistics/index.js';
export { defineStatistic, type Statistic, type StatisticContext, type StatsSources } from './statistic.js';
export { statsQueryParams, wholeHours } from './params.js';
export { LIVE_WINDOW_MINUTES } from './statistics/live-events.js';
export { INSIGHTS_CONVERSATION_LIMIT } from './statistics/conversation-insights.js';
export { utcDays } from './statistics/timeseries.js';
export { createConversationStatsRepository, type ConversationStatsRepository, type StatsChatbot } from './conversation-stats-repository.js';
export { daysWindow, parseInsightsTimeframe, subtractMonths, utcDate, type StatsWindow, type TimeframeResult } from './window.js';
export { wilsonInterval, twoProportionPValue, sampleRatioMismatch, erfc, SRM_ALPHA } from './ab-significance.js';
export { round2, percent, ratio } from './numbers.js';
export { createResultCache, type ResultCache } from './cache.js';
export { toCsv, csvCell, flatten, CSV_CONTENT_TYPE } from './csv.js';
export { RETRY_LOOKBACK_MS, RETRY_LOOKBACK_SECONDS, dedupLookbackFrom } from './retry-lookback.js';
