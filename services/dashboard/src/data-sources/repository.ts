import { and, asc, desc, eq, getTableColumns, isNotNull, isNull, sql } from 'drizzle-orm';
import { chatbots, chunks, dataSources, type Database, type ExtraTag } from '@chatlytics/postgres';
import { once } from '../repositories/once.js';
import type { RawContentStorage } from './raw-content-storage.js';
import type { SearchRepository } from './search-repository.js';

/** Where the data sources live: their rows and chunks, the chunks' full-text search, the raw files. */
export interface DataSourceStores {
  dataSources: DataSourceRepository;
  search: SearchRepository;
  storage: RawContentStorage;
}

export type DataSourceRow = typeof dataSources.$inferSelect & { chatbotName: string; childrenCount: number };
/** What the list shows (see the endpoint details in services/dashboard/docs/api.md): no settings, tags or paths, which the detail alone needs. */
export type DataSourceListRow = Pick<DataSourceRow,
  'id' | 'name' | 'type' | 'subtype' | 'status' | 'source' | 'documentCount' | 'productCount' | 'autoUpdate'
  | 'chatbotId' | 'chatbotName' | 'childrenCount' | 'createdAt' | 'updatedAt'>;
export interface ChunkRow { id: string; index: number; content: string; tokenCount: number | null; hasEmbedding: boolean }
export type ChildRow = Pick<typeof dataSources.$inferSelect, 'id' | 'name' | 'source' | 'status' | 'documentCount' | 'createdAt'>;

interface RawListRow {
  id: string; name: string; type: string; subtype: string | null; status: string; source: string | null;
  document_count: number | null; product_count: number | null; auto_update: boolean | null;
  chatbot_id: string; chatbot_name: string; children_count: number; created_ms: number; updated_ms: number;
}

/** A json column: pg and PGlite parse it already; a driver configured to hand over text is covered too. */
const jsonValue = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

// Spelled out for the reason given in chatbot-repository.ts (unqualified columns in subqueries).
const childrenCount = sql<number>`(select count(*)::int from data_sources ch where ch.parent_id = "data_sources"."id")`
  .mapWith(Number);
const withChatbot = { ...getTableColumns(dataSources), chatbotName: chatbots.name, childrenCount };

/** Data sources, chunks and children, always scoped to one account. */
export function createDataSourceRepository({ db }: { db: Database }) {
  // The detail route's queries are built once, on first use: drizzle otherwise renders each
  // query's SQL on every call, which cost more CPU than PostgreSQL's own work for these index
  // lookups. The names identify the statements on a server connection (one text per name).
  const findStmt = once(() => db.select(withChatbot).from(dataSources)
    .innerJoin(chatbots, eq(chatbots.id, dataSources.chatbotId))
    .where(and(eq(dataSources.accountId, sql.placeholder('accountId')), eq(dataSources.id, sql.placeholder('id')))).limit(1)
    .prepare('dashboard_data_source_find'));
  const chunksStmt = once(() => db.select({
    id: chunks.id, index: chunks.index, content: chunks.content, tokenCount: chunks.tokenCount,
    hasEmbedding: sql<boolean>`${chunks.embedding} is not null`.mapWith(Boolean),
  }).from(chunks).where(eq(chunks.dataSourceId, sql.placeholder('dataSourceId'))).orderBy(asc(chunks.index), asc(chunks.id))
    .prepare('dashboard_data_source_chunks'));
  const childrenStmt = once(() => db.select({
    id: dataSources.id, name: dataSources.name, source: dataSources.source, status: dataSources.status,
    documentCount: dataSources.documentCount, createdAt: dataSources.createdAt,
  }).from(dataSources).where(and(eq(dataSources.accountId, sql.placeholder('accountId')), eq(dataSources.parentId, sql.placeholder('parentId'))))
    .orderBy(desc(dataSources.createdAt), desc(dataSources.id))
    .prepare('dashboard_data_source_children'));

  return {
    /**
     * Parents only, newest first (see the endpoint details in services/dashboard/docs/api.md); id breaks ties so pages never reshuffle.
     * An account lists thousands of parents, so this query skips drizzle's row mapping (a
     * per-field type dispatch that cost more than the database itself) and selects only what
     * the list shows. Children are counted by an index probe per parent: a grouped join is
     * faster with fresh planner statistics but degenerates into a nested loop without them
     * (PGlite never auto-analyzes), and this plan is good either way. Timestamps travel as epoch milliseconds (float8), which pg and PGlite both return
     * as numbers, instead of each driver parsing timestamp text its own way.
     */
    async listParentsForAccount(accountId: string): Promise<DataSourceListRow[]> {
      const result = await db.execute(sql`
        select ds.id, ds.name, ds.type, ds.subtype, ds.status, ds.source,
               ds.document_count, ds.product_count, ds.auto_update, ds.chatbot_id, cb.name as chatbot_name,
               (select count(*)::int from data_sources ch where ch.parent_id = ds.id) as children_count,
               floor(extract(epoch from ds.created_at) * 1000)::float8 as created_ms,
               floor(extract(epoch from ds.updated_at) * 1000)::float8 as updated_ms
        from data_sources ds
        join chatbots cb on cb.id = ds.chatbot_id
        where ds.account_id = ${accountId} and ds.parent_id is null
        order by ds.created_at desc, ds.id desc`);
      return (result as unknown as { rows: RawListRow[] }).rows.map((r) => ({
        id: r.id, name: r.name, type: r.type, subtype: r.subtype, status: r.status, source: r.source,
        documentCount: r.document_count, productCount: r.product_count, autoUpdate: r.auto_update,
        chatbotId: r.chatbot_id, chatbotName: r.chatbot_name, childrenCount: r.children_count,
        createdAt: new Date(r.created_ms), updatedAt: new Date(r.updated_ms),
      }));
    },

    async findForAccount(accountId: string, id: string): Promise<DataSourceRow | null> {
      const [row] = await findStmt().execute({ accountId, id });
      return row ?? null;
    },

    /**
     * Ordered by index (see the endpoint details in services/dashboard/docs/api.md); the embedding itself is not loaded, only whether one exists.
     * Chunks carry no account: callers pass a data source found through findForAccount.
     */
    async listChunks(dataSourceId: string): Promise<ChunkRow[]> {
      return chunksStmt().execute({ dataSourceId });
    },

    /** Children newest first, like the parent list. */
    async listChildren(accountId: string, parentId: string): Promise<ChildRow[]> {
      return childrenStmt().execute({ accountId, parentId });
    },

    /**
     * The parents (ids) that carry the tag value themselves or through one of their children:
     * the tag filter of the app's data-source list. extraTagConfig's values come from parents and
     * children alike, so a value seen only on a child still finds the parent that lists it.
     * Matched on well-formed `{name, value}` string pairs only, as listExtraTags reads them.
     */
    async parentIdsTagged(accountId: string, value: string): Promise<Set<string>> {
      const result = await db.execute(sql`
        select distinct coalesce(ds.parent_id, ds.id) as id
        from data_sources ds,
             jsonb_array_elements(case when jsonb_typeof(ds.extra_tags) = 'array' then ds.extra_tags else '[]'::jsonb end) as tag
        where ds.account_id = ${accountId} and ds.extra_tags is not null
          and jsonb_typeof(tag->'name') = 'string' and jsonb_typeof(tag->'value') = 'string' and tag->>'value' = ${value}`);
      return new Set((result as unknown as { rows: { id: string }[] }).rows.map((r) => r.id));
    },

    /**
     * The distinct well-formed `{name, value}` string pairs among the extra tags of all the
     * account's data sources (parents and children), one row per chatbot that has any. Grouped
     * in PostgreSQL: an account has thousands of data sources but a few dozen distinct tags,
     * so sending every row's JSON to be parsed and merged here cost more than the rest of the
     * list. Malformed entries (the column is free JSON written by importers) are left out here,
     * as the presenter's cleanTags does.
     */
    async listExtraTags(accountId: string): Promise<{ chatbotId: string; extraTags: ExtraTag[] | null }[]> {
      // Distinct text pairs first (a hash aggregate), then one json array per chatbot: measured
      // several times faster than a distinct over jsonb objects.
      const result = await db.execute(sql`
        select chatbot_id, json_agg(json_build_object('name', name, 'value', value)) as tags
        from (
          select distinct ds.chatbot_id, tag->>'name' as name, tag->>'value' as value
          from data_sources ds,
               -- an array only: jsonb_array_elements raises an error on any other JSON value
               jsonb_array_elements(case when jsonb_typeof(ds.extra_tags) = 'array' then ds.extra_tags else '[]'::jsonb end) as tag
          where ds.account_id = ${accountId} and ds.extra_tags is not null
            and jsonb_typeof(tag->'name') = 'string' and jsonb_typeof(tag->'value') = 'string'
        ) pairs
        group by chatbot_id`);
      return (result as unknown as { rows: { chatbot_id: string; tags: unknown }[] }).rows
        .map((r) => ({ chatbotId: r.chatbot_id, extraTags: jsonValue<ExtraTag[]>(r.tags) }));
    },
  };
}
export type DataSourceRepository = ReturnType<typeof createDataSourceRepository>;
