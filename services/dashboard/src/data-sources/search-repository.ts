import { asc, desc, eq, sql } from 'drizzle-orm';
import { CHUNK_SEARCH_CONFIG, chunks, dataSources, type Database } from '@chatlytics/postgres';

export interface ChunkHit {
  content: string;
  dataSourceName: string;
  score: number;
}

/** Full-text search over a chatbot's chunks (see the endpoint details in services/dashboard/docs/api.md: origin `postgres_fts`). */
export function createSearchRepository({ db }: { db: Database }) {
  return {
    /**
     * Best first by ts_rank; equal scores fall back to data source name and chunk position so the
     * order is deterministic. websearch_to_tsquery accepts any user text (quotes, `-`, `or`)
     * without syntax errors. The caller checks that the chatbot is the account's.
     */
    async searchChunks(input: { chatbotId: string; query: string; limit: number }): Promise<ChunkHit[]> {
      const query = sql`websearch_to_tsquery(${CHUNK_SEARCH_CONFIG}::regconfig, ${input.query})`;
      const score = sql<number>`ts_rank(${chunks.search}, ${query})`.mapWith(Number);
      return db.select({ content: chunks.content, dataSourceName: dataSources.name, score })
        .from(chunks).innerJoin(dataSources, eq(dataSources.id, chunks.dataSourceId))
        .where(sql`${dataSources.chatbotId} = ${input.chatbotId} and ${chunks.search} @@ ${query}`)
        .orderBy(desc(score), asc(dataSources.name), asc(chunks.index), asc(chunks.id))
        .limit(input.limit);
    },
  };
}
export type SearchRepository = ReturnType<typeof createSearchRepository>;
