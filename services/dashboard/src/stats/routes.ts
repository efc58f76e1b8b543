import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import { ANY_CREDENTIAL_SECURITY, errorResponses } from '../http/schemas.js';
import { CsvBody, csvExport } from './csv.js';
import { strictQueryValidatorCompiler } from './query-validation.js';
import type { StatsService } from './run.js';
import { withPrevious } from './schemas.js';
import { NO_SEGMENT, segmentOf, type SegmentFilter } from './segment.js';
import type { AnyStatistic, Query } from './statistic.js';
import { STATISTICS } from './statistics/index.js';

export interface StatsRoutesOptions {
  /** The statistics of the JSON API and of the app pages (one cache, one set of definitions). */
  stats: StatsService;
}

/** The route of a statistic; `config.statistic` tells the CSV hook whose file it names. */
function route(s: AnyStatistic) {
  return {
    config: { auth: 'credential' as const, statistic: s },
    validatorCompiler: strictQueryValidatorCompiler,
    schema: {
      tags: ['statistics'],
      summary: s.summary,
      security: ANY_CREDENTIAL_SECURITY,
      querystring: s.querystring,
      response: {
        200: {
          description: 'JSON, or with `format=csv` the same numbers as CSV',
          content: { 'application/json': { schema: s.compare ? withPrevious(s.response) : s.response }, 'text/csv': { schema: CsvBody } },
        },
        ...errorResponses(401, 404, 422, 500),
      },
    },
  };
}

/**
 * GET /analytics/stats/<name> for every statistic of the registry (docs/statistics.md). Register
 * under the dashboard's /api/dashboard prefix, inside dashboardApp: its auth hook (route config
 * `auth: 'credential'`), validator and error handler give the 401 / 404 / 422 / 500 answers.
 * Bodies are bare objects (no success wrapper).
 */
export const statsRoutes: FastifyPluginAsyncTypebox<StatsRoutesOptions> = async (app, { stats }) => {
  // `?format=csv`: every route here answers CSV too, converted from the body JSON would carry.
  app.addHook('preSerialization', csvExport);

  const answer = (s: AnyStatistic, q: Query & { chatbot_id: string }, account: string): Promise<object> => {
    // Only a statistic whose query names the segment filters is filtered by them.
    const segment = 'source' in s.querystring.properties ? segmentOf(q as SegmentFilter) : NO_SEGMENT;
    const asked = { account, chatbot: q.chatbot_id, extra: s.extra(q), segment };
    if (s.frame === 'insights') return stats.answer(s, { ...asked, frame: String(q.timeframe) });
    if (s.frame === 'live') return stats.answer(s, asked);
    const frame = stats.frameOf(q as { timeframe?: number; from?: string; to?: string });
    return s.compare && q.compare === 'previous' ? stats.compared(s, { ...asked, frame }) : stats.answer(s, { ...asked, frame });
  };
  for (const s of STATISTICS as readonly AnyStatistic[]) {
    app.get(`/analytics/stats/${s.name}`, route(s), async (req) =>
      answer(s, req.query as Query & { chatbot_id: string }, principalOf(req).accountId) as Promise<Record<string, unknown>>);
  }
};

export default statsRoutes;
