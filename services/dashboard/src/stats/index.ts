export { statsRoutes, DEFAULT_STATS_CACHE_TTL_MS, type StatsRoutesOptions } from './routes.js';
export { createStatsRepository, INSIGHTS_CONVERSATION_LIMIT, type StatsRepository, type StatsRepositoryDeps } from './repository.js';
export { createEventStatsRepository, type EventStatsRepository } from './event-stats-repository.js';
export { createConversationStatsRepository, type ConversationStatsRepository, type StatsChatbot } from './conversation-stats-repository.js';
export { daysWindow, parseInsightsTimeframe, subtractMonths, utcDate, type StatsWindow, type TimeframeResult } from './timeframe.js';
export { wilsonInterval, twoProportionPValue, sampleRatioMismatch, erfc, SRM_ALPHA } from './ab-significance.js';
export { round2, percent, ratio } from './numbers.js';
export { createResultCache, type ResultCache } from './cache.js';
export { RETRY_LOOKBACK_MS, dedupLookbackFrom } from './retry-lookback.js';
