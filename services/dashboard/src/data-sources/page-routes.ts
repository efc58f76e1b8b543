import Type from 'typebox';
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import type { DashboardDeps } from '../deps.js';
import type { DataSourceStores } from './repository.js';
import { Errors } from '../http/errors.js';
import { readRawPreview } from './raw-content.js';
import {
  buildExtraTagConfig, presentChild, presentChunk, presentDataSourceDetail, presentDataSourceListItem,
} from './presenter.js';
import { runSearchTest, SearchTestBody } from './search-test-routes.js';
import { errorResponses, SESSION_SECURITY } from '../http/schemas.js';
import { fieldErrors, type SchemaError } from '../http/validation.js';
import { dataSourceDetailBody, dataSourceListBody, searchBody, type SearchForm } from './views.js';
import { sendAppPage } from '../html/layout.js';

const Page = Type.String({ description: 'HTML page' });
/** Rows per page of the list: an account has thousands of data sources, a page shows a screenful. */
export const DATA_SOURCES_PER_PAGE = 50;
// Loose text on purpose: the handler judges the filter (a foreign chatbot is the 404 page, a bad
// page number the first page) instead of the generic validation error.
const ListQuery = Type.Object({
  chatbot_id: Type.Optional(Type.String({ maxLength: 100 })),
  tag: Type.Optional(Type.String({ maxLength: 500 })),
  page: Type.Optional(Type.String({ maxLength: 20 })),
});
const SearchQuery = Type.Object({ chatbot_id: Type.Optional(Type.String({ maxLength: 100 })) });
// Form fields arrive as text; the JSON route's body schema judges them in the handler, so a bad
// value comes back in the form (422) with the values kept.
const SearchFormBody = Type.Object({
  chatbot_id: Type.Optional(Type.String()), query: Type.Optional(Type.String()), document_count: Type.Optional(Type.String()),
});
const checkSearch = Compile(SearchTestBody);

/**
 * The data-source pages under /app (web session; see the pages in services/dashboard/docs/api.md):
 * the list with its chatbot and tag filters, one data source with its chunks, raw preview and
 * children, and the search test as a form. They read through the repositories and the search
 * service that the JSON routes use (routes.ts, search-test-routes.ts), so a page
 * shows what the API answers; another account's ids get the 404 page.
 */
export const dataSourcePageRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps; stores: DataSourceStores }> = async (app, { deps, stores }) => {
  const { chatbots } = deps.repos;
  const { dataSources } = stores;
  const config = { auth: 'session' as const, page: true };
  const schema = <E extends object = object>(summary: string, extra?: E) => ({
    tags: ['pages'], summary, security: SESSION_SECURITY, ...(extra as E),
    response: { 200: Page, ...errorResponses(401, 403, 404, 422, 500) },
  });

  app.get('/app/data-sources', { config, schema: schema('Data sources: the list, filtered by chatbot and tag', { querystring: ListQuery }) }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const chatbotId = req.query.chatbot_id?.trim() ?? '';
    const tag = req.query.tag ?? '';
    const [rows, bots, tagRows, tagged] = await Promise.all([
      dataSources.listParentsForAccount(accountId),
      chatbots.listForAccount(accountId),
      dataSources.listExtraTags(accountId),
      tag ? dataSources.parentIdsTagged(accountId, tag) : null,
    ]);
    if (chatbotId && !bots.some((b) => b.id === chatbotId)) throw Errors.notFound();
    const tagConfig = buildExtraTagConfig(bots, tagRows);
    const tags = chatbotId ? tagConfig[chatbotId]!.values : [...new Set(Object.values(tagConfig).flatMap((c) => c.values))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const matching = rows.filter((r) => (!chatbotId || r.chatbotId === chatbotId) && (!tagged || tagged.has(r.id)));
    const pages = Math.max(1, Math.ceil(matching.length / DATA_SOURCES_PER_PAGE));
    const asked = /^[0-9]{1,9}$/.test(req.query.page ?? '') ? Number(req.query.page) : 1;
    const page = Math.min(Math.max(asked, 1), pages);
    const first = (page - 1) * DATA_SOURCES_PER_PAGE;
    const now = deps.clock();
    const choices = bots.map((b) => ({ id: b.id, name: b.name }));
    return sendAppPage(reply, {
      title: 'Data sources', chatbots: choices, selectedChatbot: chatbotId || undefined,
      body: dataSourceListBody(choices, tags, { chatbotId, tag }, {
        rows: matching.slice(first, first + DATA_SOURCES_PER_PAGE).map((r) => presentDataSourceListItem(r, now)),
        total: matching.length, page, pages, first: first + 1,
      }),
    });
  });

  const searchPage = async (accountId: string, form: SearchForm, docs: Parameters<typeof searchBody>[2]) => {
    const choices = (await chatbots.listForAccount(accountId)).map((b) => ({ id: b.id, name: b.name }));
    return { title: 'Search test', chatbots: choices, selectedChatbot: form.chatbotId || undefined, body: searchBody(choices, form, docs) };
  };

  app.get('/app/data-sources/search', { config, schema: schema('Search test: the form', { querystring: SearchQuery }) }, async (req, reply) => {
    const form = { chatbotId: req.query.chatbot_id ?? '', query: '', documentCount: '10', errors: null };
    return sendAppPage(reply, await searchPage(principalOf(req).accountId, form, null));
  });

  app.post('/app/data-sources/search', { config, schema: schema('Search test: run it, show the results', { body: SearchFormBody }) }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const form: SearchForm = { chatbotId: req.body.chatbot_id ?? '', query: req.body.query ?? '', documentCount: (req.body.document_count ?? '').trim(), errors: null };
    // The JSON route's conversion and rules: "10" is the integer 10, an empty count the default.
    const input = Value.Convert(SearchTestBody, {
      chatbot_id: form.chatbotId, query: form.query, ...(form.documentCount ? { document_count: form.documentCount } : {}),
    }) as { chatbot_id: string; query: string; document_count?: number };
    if (!checkSearch.Check(input)) {
      const errors = fieldErrors(checkSearch.Errors(input) as unknown as SchemaError[]);
      return sendAppPage(reply, await searchPage(accountId, { ...form, errors }, null), 422);
    }
    const result = await runSearchTest(deps, stores, accountId, { chatbotId: input.chatbot_id, query: input.query, limit: input.document_count ?? 10 });
    return sendAppPage(reply, await searchPage(accountId, form, result.docs));
  });

  app.get('/app/data-sources/:id', {
    config, schema: schema('One data source: chunks, raw preview, children', { params: Type.Object({ id: Type.String({ format: 'uuid' }) }) }),
  }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const row = await dataSources.findForAccount(accountId, req.params.id);
    if (!row) throw Errors.notFound();
    const [chunkRows, children, rawContent, bots] = await Promise.all([
      dataSources.listChunks(row.id),
      dataSources.listChildren(accountId, row.id),
      readRawPreview(stores.storage, row.rawPath, req.log, row.id),
      chatbots.listForAccount(accountId),
    ]);
    return sendAppPage(reply, {
      title: `${row.name}: data source`, chatbots: bots.map((b) => ({ id: b.id, name: b.name })), selectedChatbot: row.chatbotId,
      body: dataSourceDetailBody({
        ds: presentDataSourceDetail(row), parentId: row.parentId, chunks: chunkRows.map(presentChunk), rawContent, children: children.map(presentChild),
      }),
    });
  });
};
