import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type, { type Static, type TSchema } from 'typebox';
import { principalOf } from '../auth/auth-plugin.js';
import { ANY_CREDENTIAL_SECURITY, errorResponses } from '../schemas/common.js';
import { CsvBody, csvExport } from './csv.js';
import type { StatsFrame } from './window.js';
import { strictQueryValidatorCompiler } from './query-validation.js';
import {
  EngagementResponse, InsightsQuery, InsightsResponse, LiveEventsResponse, OverviewResponse, PopupMetricsResponse, PurchasesResponse,
  SourcesQuery, SourcesResponse, StatsQuery, TimeseriesResponse, WindowedQuery, withPrevious,
} from './schemas.js';
import { segmentOf, type SegmentFilter } from './segment.js';
import type { Period, StatsService } from './service.js';
import { SetAsideResponse } from './set-aside.js';
import { CartResponse, TopicsQuery, TopicsResponse } from './cart-topics-schemas.js';

export interface StatsRoutesOptions {
  /** The statistics of the JSON API and of the app pages (one cache, one set of definitions). */
  stats: StatsService;
}

/** The live view's window: the last 30 minutes (services/dashboard/README.md). */
export const LIVE_WINDOW_MINUTES = 30;

/**
 * GET /analytics/stats/{overview,engagement,popup-metrics,purchases,timeseries,cart,topics,sources,live-events,conversation-insights}
 * (see the statistics definitions in services/dashboard/README.md). Register under the dashboard's /api/dashboard prefix, inside
 * dashboardApp: its auth hook (route config `auth: 'credential'`), validator and error
 * handler give the 401 / 404 / 422 / 500 answers. Bodies are bare objects (no success wrapper).
 */
export const statsRoutes: FastifyPluginAsyncTypebox<StatsRoutesOptions> = async (app, { stats }) => {

  // `?format=csv`: every route here answers CSV too, converted from the body JSON would carry.
  app.addHook('preSerialization', csvExport);

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
  const account = (req: Parameters<typeof principalOf>[0]) => principalOf(req).accountId;
  const frame = (q: { timeframe?: number; from?: string; to?: string }) => stats.frameOf(q);

  /**
   * A day-count statistic over the window of `timeframe` or `from`/`to`, for the segment its
   * filters name; with `compare=previous` over the period before it too (the same segment).
   */
  const answer = <T extends object>(q: Static<typeof WindowedQuery>, one: (f: StatsFrame, at: Date | undefined, period: Period | undefined, segment: SegmentFilter) => Promise<T>) => {
    const f = frame(q);
    const segment = segmentOf(q);
    return q.compare === 'previous' ? stats.withPrevious(f, (at, period) => one(f, at, period, segment)) : one(f, undefined, undefined, segment);
  };

  app.get('/analytics/stats/overview', route('Conversations, AI messages and saved hours (PostgreSQL)', withPrevious(OverviewResponse), WindowedQuery), async (req) =>
    answer(req.query, (f, at, period, segment) => stats.overview(account(req), req.query.chatbot_id, f, at, period, segment)));

  app.get('/analytics/stats/engagement', route('Visitor funnel: approached, opened, chatted', withPrevious(EngagementResponse), WindowedQuery), async (req) =>
    answer(req.query, (f, at, period, segment) => stats.engagement(account(req), req.query.chatbot_id, f, at, period, segment)));

  app.get('/analytics/stats/popup-metrics', route('Popup displays and opens per version; conversation starts', withPrevious(PopupMetricsResponse), WindowedQuery), async (req) =>
    answer(req.query, (f, at, period, segment) => stats.popupMetrics(account(req), req.query.chatbot_id, f, at, period, segment)));

  app.get('/analytics/stats/purchases', route('Purchases, revenue and conversion with and without chat; A/B test', withPrevious(PurchasesResponse), WindowedQuery), async (req) =>
    answer(req.query, (f, at, period, segment) => stats.purchases(account(req), req.query.chatbot_id, f, at, period, segment)));

  app.get('/analytics/stats/timeseries', route('Daily visitors, conversations, purchases and revenue (UTC days)', withPrevious(TimeseriesResponse), WindowedQuery), async (req) =>
    answer(req.query, (f, at, period, segment) => stats.timeseries(account(req), req.query.chatbot_id, f, at, period, segment)));

  app.get('/analytics/stats/sources', route('Visitors, chats, purchases and revenue per traffic source, campaign or device', withPrevious(SourcesResponse), SourcesQuery), async (req) =>
    answer(req.query, (f, at, period, segment) => stats.sources(account(req), req.query.chatbot_id, req.query.by ?? 'source', f, at, period, segment)));

  app.get('/analytics/stats/cart', route('Cart funnel: added to cart, went to cart, bought; abandoned carts and their value; chatted or not', withPrevious(CartResponse), StatsQuery), async (req) =>
    answer(req.query, (f, at, period) => stats.cart(account(req), req.query.chatbot_id, f, at, period)));

  app.get('/analytics/stats/topics', route('Revenue by topic: per item of the conversation analysis, visitors, purchasers, revenue and conversion', withPrevious(TopicsResponse), TopicsQuery), async (req) =>
    answer(req.query, (f, at, period) => stats.topics(account(req), req.query.chatbot_id, req.query.dimension, f, at, period)));

  app.get('/analytics/stats/set-aside-purchases', route('Purchases accepted but not counted: implausible, or unverified when signatures are required', SetAsideResponse, StatsQuery), async (req) =>
    stats.setAsidePurchases(account(req), req.query.chatbot_id, frame(req.query)));

  app.get('/analytics/stats/live-events', route(`Events per minute over the last ${LIVE_WINDOW_MINUTES} minutes`, LiveEventsResponse,
    Type.Object({ chatbot_id: StatsQuery.properties.chatbot_id, format: StatsQuery.properties.format })), async (req) =>
    stats.liveEvents(account(req), req.query.chatbot_id, LIVE_WINDOW_MINUTES));

  app.get('/analytics/stats/conversation-insights', route('Report over analysed conversations', InsightsResponse, InsightsQuery), async (req) =>
    stats.conversationInsights(account(req), req.query.chatbot_id, req.query.timeframe));
};

export default statsRoutes;
