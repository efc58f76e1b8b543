import { and, asc, desc, eq, getTableColumns, isNotNull, isNull, sql } from 'drizzle-orm';
import { chatbots, chunks, dataSources, type Database, type ExtraTag } from '@chatlytics/postgres';

export type DataSourceRow = typeof dataSources.$inferSelect & { chatbotName: string; childrenCount: number };
export interface ChunkRow { id: string; index: number; content: string; tokenCount: number | null; hasEmbedding: boolean }
export type ChildRow = Pick<typeof dataSources.$inferSelect, 'id' | 'name' | 'source' | 'status' | 'documentCount' | 'createdAt'>;

// Spelled out for the reason given in chatbot-repository.ts (unqualified columns in subqueries).
const childrenCount = sql<number>`(select count(*)::int from data_sources ch where ch.parent_id = "data_sources"."id")`
  .mapWith(Number);
const withChatbot = { ...getTableColumns(dataSources), chatbotName: chatbots.name, childrenCount };

/** Data sources, chunks and children, always scoped to one account. */
export function createDataSourceRepository({ db }: { db: Database }) {
  return {
    /** Parents only, newest first (spec §4.2); id breaks ties so pages never reshuffle. */
    async listParentsForAccount(accountId: string): Promise<DataSourceRow[]> {
      return db.select(withChatbot).from(dataSources)
        .innerJoin(chatbots, eq(chatbots.id, dataSources.chatbotId))
        .where(and(eq(dataSources.accountId, accountId), isNull(dataSources.parentId)))
        .orderBy(desc(dataSources.createdAt), desc(dataSources.id));
    },

    async findForAccount(accountId: string, id: string): Promise<DataSourceRow | null> {
      const [row] = await db.select(withChatbot).from(dataSources)
        .innerJoin(chatbots, eq(chatbots.id, dataSources.chatbotId))
        .where(and(eq(dataSources.accountId, accountId), eq(dataSources.id, id))).limit(1);
      return row ?? null;
    },

    /**
     * Ordered by index (spec §2.4); the embedding itself is not loaded, only whether one exists.
     * Chunks carry no account: callers pass a data source found through findForAccount.
     */
    async listChunks(dataSourceId: string): Promise<ChunkRow[]> {
      return db.select({
        id: chunks.id, index: chunks.index, content: chunks.content, tokenCount: chunks.tokenCount,
        hasEmbedding: sql<boolean>`${chunks.embedding} is not null`.mapWith(Boolean),
      }).from(chunks).where(eq(chunks.dataSourceId, dataSourceId)).orderBy(asc(chunks.index), asc(chunks.id));
    },

    /** Children newest first, like the parent list. */
    async listChildren(accountId: string, parentId: string): Promise<ChildRow[]> {
      return db.select({
        id: dataSources.id, name: dataSources.name, source: dataSources.source, status: dataSources.status,
        documentCount: dataSources.documentCount, createdAt: dataSources.createdAt,
      }).from(dataSources).where(and(eq(dataSources.accountId, accountId), eq(dataSources.parentId, parentId)))
        .orderBy(desc(dataSources.createdAt), desc(dataSources.id));
    },

    /** The extra tags of every data source (parents and children) of the account, per chatbot. */
    async listExtraTags(accountId: string): Promise<{ chatbotId: string; extraTags: ExtraTag[] | null }[]> {
      return db.select({ chatbotId: dataSources.chatbotId, extraTags: dataSources.extraTags }).from(dataSources)
        .where(and(eq(dataSources.accountId, accountId), isNotNull(dataSources.extraTags)));
    },
  };
}
export type DataSourceRepository = ReturnType<typeof createDataSourceRepository>;
