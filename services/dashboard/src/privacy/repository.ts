import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import {
  conversationAnalyses, conversations, messages, visitorErasures, type Database, type ErasureCounts,
} from '@chatlytics/postgres';

export type ErasureRow = typeof visitorErasures.$inferSelect;

/**
 * One visitor's rows in PostgreSQL (README.md, "Personal data"): conversations naming the token,
 * their messages and analyses (cascaded), and the erasure audit. Callers have checked that the
 * chatbot is the account's.
 */
export function createPrivacyRepository({ db }: { db: Database }) {
  const ofToken = (chatbotId: string, token: string) => and(eq(conversations.chatbotId, chatbotId), eq(conversations.visitorToken, token));

  return {
    /**
     * Deletes the token's conversations (messages and analyses go with them: ON DELETE CASCADE)
     * and records the erasure, in one transaction: the audit row exists iff the rows are gone.
     */
    async eraseAndRecord(input: {
      accountId: string; chatbotId: string; token: string; tokenHmac: string; tokenDigest: string;
      userId: string | null; credentialId: string | null; at: Date;
    }): Promise<ErasureRow> {
      return db.transaction(async (tx) => {
        const ids = (await tx.select({ id: conversations.id }).from(conversations).where(ofToken(input.chatbotId, input.token))).map((r) => r.id);
        const count = async (q: Promise<{ n: number }[]>) => (ids.length === 0 ? 0 : Number((await q)[0].n));
        const removed: ErasureCounts = {
          conversations: ids.length,
          messages: await count(tx.select({ n: sql<number>`count(*)` }).from(messages).where(inArray(messages.conversationId, ids))),
          analyses: await count(tx.select({ n: sql<number>`count(*)` }).from(conversationAnalyses).where(inArray(conversationAnalyses.conversationId, ids))),
        };
        if (ids.length > 0) await tx.delete(conversations).where(inArray(conversations.id, ids));
        const [row] = await tx.insert(visitorErasures).values({
          accountId: input.accountId, chatbotId: input.chatbotId, requestedByUserId: input.userId, requestedByCredentialId: input.credentialId,
          tokenHmac: input.tokenHmac, tokenDigest: input.tokenDigest, removed, requestedAt: input.at,
        }).returning();
        return row;
      });
    },

    async find(id: string): Promise<ErasureRow | null> {
      const [row] = await db.select().from(visitorErasures).where(eq(visitorErasures.id, id)).limit(1);
      return row ?? null;
    },

    async findForChatbot(accountId: string, chatbotId: string, id: string): Promise<ErasureRow | null> {
      const [row] = await db.select().from(visitorErasures)
        .where(and(eq(visitorErasures.id, id), eq(visitorErasures.accountId, accountId), eq(visitorErasures.chatbotId, chatbotId))).limit(1);
      return row ?? null;
    },

    /** The ClickHouse half done: its counts join the PostgreSQL ones. */
    async complete(id: string, clickhouse: ErasureCounts, at: Date): Promise<void> {
      await db.update(visitorErasures)
        .set({ status: 'complete', completedAt: at, removed: sql`${visitorErasures.removed} || ${JSON.stringify(clickhouse)}::jsonb` })
        .where(eq(visitorErasures.id, id));
    },

    /** Every conversation of the token with its messages and analysis, oldest first (the export). */
    async conversationsOf(chatbotId: string, token: string) {
      const convos = await db.select().from(conversations).where(ofToken(chatbotId, token)).orderBy(asc(conversations.startedAt), asc(conversations.id));
      if (convos.length === 0) return [];
      const ids = convos.map((c) => c.id);
      const msgs = await db.select().from(messages).where(inArray(messages.conversationId, ids)).orderBy(asc(messages.createdAt), asc(messages.id));
      const analyses = await db.select().from(conversationAnalyses).where(inArray(conversationAnalyses.conversationId, ids));
      return convos.map((c) => ({
        ...c,
        messages: msgs.filter((m) => m.conversationId === c.id),
        analysis: analyses.find((a) => a.conversationId === c.id) ?? null,
      }));
    },
  };
}

export type PrivacyRepository = ReturnType<typeof createPrivacyRepository>;
