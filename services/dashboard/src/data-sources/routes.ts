import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import type { DashboardDeps } from '../deps.js';
import type { DataSourceStores } from './repository.js';
import { Errors } from '../http/errors.js';
import { readRawPreview } from './raw-content.js';
import {
  ChildSchema, ChunkSchema, DataSourceDetail, DataSourceListItem, ExtraTagConfig,
  buildExtraTagConfig, presentChild, presentChunk, presentDataSourceDetail, presentDataSourceListItem,
} from './presenter.js';
import { ANY_CREDENTIAL_SECURITY, IdParams, Nullable, Success, errorResponses } from '../http/schemas.js';

/** Per the endpoint details in services/dashboard/docs/api.md: listing and detail, under /api/dashboard. */
export const dataSourceRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps; stores: DataSourceStores }> = async (app, { deps, stores }) => {
  const { chatbots } = deps.repos;
  const { dataSources } = stores;

  app.get('/data-sources', {
    config: { auth: 'credential' },
    schema: {
      tags: ['dashboard'],
      summary: "The account's parent data sources, newest first, with filter data",
      security: ANY_CREDENTIAL_SECURITY,
      response: {
        200: Success(Type.Object({
          dataSources: Type.Array(DataSourceListItem),
          chatbots: Type.Array(Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() })),
          cmsProviders: Type.Array(Type.String()),
          extraTagConfig: ExtraTagConfig,
        })),
        ...errorResponses(401, 500),
      },
    },
  }, async (req) => {
    const { accountId } = principalOf(req);
    const [rows, bots, tags, cmsProviders] = await Promise.all([
      dataSources.listParentsForAccount(accountId),
      chatbots.listForAccount(accountId),
      dataSources.listExtraTags(accountId),
      deps.repos.accounts.cmsProviders(accountId),
    ]);
    const now = deps.clock();
    return {
      success: true as const,
      data: {
        dataSources: rows.map((r) => presentDataSourceListItem(r, now)),
        chatbots: bots.map((b) => ({ id: b.id, name: b.name })),
        cmsProviders,
        extraTagConfig: buildExtraTagConfig(bots, tags),
      },
    };
  });

  app.get('/data-sources/:id', {
    config: { auth: 'credential' },
    schema: {
      tags: ['dashboard'],
      summary: 'One data source of the account with its chunks, raw content preview and children',
      security: ANY_CREDENTIAL_SECURITY,
      params: IdParams,
      response: {
        200: Success(Type.Object({
          dataSource: DataSourceDetail,
          chunks: Type.Array(ChunkSchema),
          rawContent: Nullable(Type.String({ description: 'At most 51200 characters, then a `[truncated: …]` line' })),
          children: Type.Array(ChildSchema),
        })),
        ...errorResponses(401, 404, 500),
      },
    },
  }, async (req) => {
    const { accountId } = principalOf(req);
    const row = await dataSources.findForAccount(accountId, req.params.id);
    if (!row) throw Errors.notFound();
    const [chunkRows, children, rawContent] = await Promise.all([
      dataSources.listChunks(row.id),
      dataSources.listChildren(accountId, row.id),
      readRawPreview(stores.storage, row.rawPath, req.log, row.id),
    ]);
    return {
      success: true as const,
      data: {
        dataSource: presentDataSourceDetail(row),
        chunks: chunkRows.map(presentChunk),
        rawContent,
        children: children.map(presentChild),
      },
    };
  });
};
