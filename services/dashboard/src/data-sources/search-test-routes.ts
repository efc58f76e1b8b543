import Type, { type Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import type { DashboardDeps } from '../deps.js';
import type { DataSourceStores } from './repository.js';
import { Errors } from '../http/errors.js';
import { SESSION_SECURITY, errorResponses } from '../http/schemas.js';

/** Name of the retrieval backend in every result (see the endpoint details in services/dashboard/docs/api.md). */
export const SEARCH_ORIGIN = 'postgres_fts';

export const SearchTestBody = Type.Object({
  chatbot_id: Type.String({ format: 'uuid', description: 'Chatbot whose knowledge base is searched' }),
  query: Type.String({ minLength: 1, maxLength: 5000, description: 'Search text' }),
  document_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Max documents returned' })),
});

export const SearchResult = Type.Object({
  docs: Type.Array(Type.Object({
    content: Type.String({ description: 'Chunk text' }),
    name: Type.String({ description: 'Data source name' }),
    score: Type.Number({ description: 'ts_rank relevance, higher is better' }),
    origin: Type.String({ description: '`postgres_fts`' }),
    filters: Type.Array(Type.Unknown(), { description: 'Always empty' }),
    search_position: Type.Integer({ description: 'From 1' }),
  })),
  summary: Type.String({ description: 'Always empty' }),
});

/**
 * The search test itself, for the JSON route below and the app's search form alike (one
 * implementation, so the page shows what the API answers): the account's chatbot only (another
 * account's answers 404), then PostgreSQL full-text search, results numbered from 1.
 */
export async function runSearchTest(
  deps: DashboardDeps, stores: DataSourceStores, accountId: string, input: { chatbotId: string; query: string; limit: number },
): Promise<Static<typeof SearchResult>> {
  if (!(await deps.repos.chatbots.existsForAccount(accountId, input.chatbotId))) throw Errors.notFound();
  let hits;
  try {
    hits = await stores.search.searchChunks(input);
  } catch (err) {
    throw Errors.searchFailed(err);
  }
  return {
    docs: hits.map((h, i) => ({
      content: h.content, name: h.dataSourceName, score: h.score, origin: SEARCH_ORIGIN, filters: [], search_position: i + 1,
    })),
    summary: '',
  };
}

/** Per the endpoint details in services/dashboard/docs/api.md: search test, under /app: web session only. */
export const searchTestRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps; stores: DataSourceStores }> = async (app, { deps, stores }) => {
  app.post('/data-sources/search-test', {
    config: { auth: 'session' },
    schema: {
      tags: ['dashboard'],
      summary: "Run a full-text search over a chatbot's knowledge base (web session only)",
      security: SESSION_SECURITY,
      body: SearchTestBody,
      response: { 200: SearchResult, ...errorResponses(401, 403, 404, 422, 500) },
    },
  }, async (req) => {
    const { chatbot_id: chatbotId, query, document_count: limit = 10 } = req.body;
    return runSearchTest(deps, stores, principalOf(req).accountId, { chatbotId, query, limit });
  });
};
