import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Config } from '@chatlytics/core';
import type { Database } from '@chatlytics/postgres';
import { principalOf } from '../auth/auth-plugin.js';
import { Errors } from '../errors.js';
import { ANY_CREDENTIAL_SECURITY, errorResponses } from '../schemas/common.js';
import { createResultCache } from './cache.js';
import { CsvBody, csvExport } from './csv.js';
import { strictQueryValidatorCompiler } from './query-validation.js';
import { createStatsRepository } from './repository.js';
import type { StatsChatbot } from './conversation-stats-repository.js';
import {
  EngagementResponse, InsightsQuery, InsightsResponse, OverviewResponse, PopupMetricsResponse, PurchasesResponse, StatsQuery,
} from './schemas.js';
import { daysWindow, parseInsightsTimeframe, utcDate, type StatsWindow } from './timeframe.js';

export interface StatsRoutesOptions {
  config: Pick<Config, 'appUrl'>;
  clickhouse: ClickHouseEngine;
  db: Database;
  /** "Now" of every window; tests pin it. */
  clock?: () => Date;
  /** How long a computed statistic is reused (ms); 0 disables the cache. Default 5 s (services/dashboard/README.md). */
  cacheTtlMs?: number;
}

export const DEFAULT_STATS_CACHE_TTL_MS = 5000;
const DEFAULT_TIMEFRAME_DAYS = 7;

/**
 * GET /analytics/stats/{overview,engagement,popup-metrics,purchases,conversation-insights}
 * (see the statistics definitions in services/dashboard/README.md). Register under the dashboard's /api/dashboard prefix, inside
 * dashboardApp: its auth hook (route config `auth: 'credential'`), validator and error
 * handler give the 401 / 422 / 500 answers. Bodies are bare objects (no success wrapper).
 */
export const statsRoutes: FastifyPluginAsyncTypebox<StatsRoutesOptions> = async (app, opts) => {
  const repo = createStatsRepository({ clickhouse: opts.clickhouse, db: opts.db, appUrl: opts.config.appUrl });
  const clock = opts.clock ?? (() => new Date());
  const cache = createResultCache({ ttlMs: opts.cacheTtlMs ?? DEFAULT_STATS_CACHE_TTL_MS });

  /** The caller's chatbot, or 404: another account's chatbot must look like no chatbot at all. */
  const ownChatbot = async (req: FastifyRequest, chatbotId: string): Promise<StatsChatbot> => {
    const chatbot = await repo.chatbotOfAccount(principalOf(req).accountId, chatbotId);
    if (!chatbot) throw Errors.notFound();
    return chatbot;
  };
  // The account is part of the key although ownership was just checked: one account's
  // answer is never served to another, even if a chatbot changed hands.
  const cached = <T>(req: FastifyRequest, stat: string, chatbotId: string, timeframe: string | number, compute: () => Promise<T>) =>
    cache.get(JSON.stringify([principalOf(req).accountId, chatbotId, stat, timeframe]), compute);

  // `?format=csv`: every route here answers CSV too, converted from the body JSON would carry.
  app.addHook('preSerialization', csvExport);

  const windowed = <T extends object>(days: number, w: StatsWindow, body: T) =>
    ({ timeframe_days: days, start_date: utcDate(w.from), end_date: utcDate(w.to), ...body });

  /** A statistic of one chatbot over the last `timeframe` days (default 7), cached per account. */
  const daysStat = async <T extends object>(
    req: FastifyRequest, query: Static<typeof StatsQuery>, stat: string,
    load: (chatbotId: string, w: StatsWindow) => Promise<T>,
  ) => {
    const { chatbot_id: chatbotId, timeframe: days = DEFAULT_TIMEFRAME_DAYS } = query;
    await ownChatbot(req, chatbotId);
    return cached(req, stat, chatbotId, days, async () => {
      const w = daysWindow(days, clock());
      return windowed(days, w, await load(chatbotId, w));
    });
  };

  const route = <Q extends TSchema, R extends TSchema>(summary: string, response: R, querystring: Q) => ({
    config: { auth: 'credential' as const },
    validatorCompiler: strictQueryValidatorCompiler,
    schema: {
      tags: ['statistics'],
      summary,
      security: ANY_CREDENTIAL_SECURITY,
      querystring,
      response: {
        200: { description: 'JSON, or with `format=csv` the same numbers as CSV', content: { 'application/json': { schema: response }, 'text/csv': { schema: CsvBody } } },
        ...errorResponses(401, 404, 422, 500),
      },
    },
  });

  app.get('/analytics/stats/overview', route('Conversations, AI messages and saved hours (PostgreSQL)', OverviewResponse, StatsQuery), async (req) =>
    daysStat(req, req.query, 'overview', (id, w) => repo.overview(id, w)));

  app.get('/analytics/stats/engagement', route('Visitor funnel: approached, opened, chatted', EngagementResponse, StatsQuery), async (req) =>
    daysStat(req, req.query, 'engagement', (id, w) => repo.engagement(id, w)));

  app.get('/analytics/stats/popup-metrics', route('Popup displays and opens per version; conversation starts', PopupMetricsResponse, StatsQuery), async (req) =>
    daysStat(req, req.query, 'popup-metrics', (id, w) => repo.popupMetrics(id, w)));

  app.get('/analytics/stats/purchases', route('Purchases, revenue and conversion with and without chat; A/B test', PurchasesResponse, StatsQuery), async (req) => {
    const { chatbot_id: chatbotId, timeframe: days = DEFAULT_TIMEFRAME_DAYS } = req.query;
    const chatbot = await ownChatbot(req, chatbotId);
    // abTestEnabled changes the body's shape: it belongs in the key.
    return cached(req, 'purchases', chatbotId, `${days}/${chatbot.abTestEnabled}`, async () => {
      const w = daysWindow(days, clock());
      return windowed(days, w, await repo.purchases(chatbot, w));
    });
  });

  app.get('/analytics/stats/conversation-insights', route('Report over analysed conversations', InsightsResponse, InsightsQuery), async (req) => {
    const { chatbot_id: chatbotId, timeframe } = req.query;
    await ownChatbot(req, chatbotId);
    const key = timeframe.trim().toLowerCase();
    return cached(req, 'conversation-insights', chatbotId, key, async () => {
      const parsed = parseInsightsTimeframe(timeframe, clock());
      if (!parsed.ok) throw Errors.validation({ timeframe: [parsed.message] });
      return repo.conversationInsights(chatbotId, parsed.window);
    });
  });
};

export default statsRoutes;
