import { and, asc, eq, getTableColumns, sql } from 'drizzle-orm';
import { chatbots, type Database } from '@chatlytics/postgres';

export type ChatbotRow = typeof chatbots.$inferSelect & { conversations: number };

// Spelled out: drizzle renders columns unqualified inside a single-table select, and an
// unqualified `id` in this subquery would mean the conversation's own id.
const conversationCount = sql<number>`(select count(*)::int from conversations cv where cv.chatbot_id = "chatbots"."id")`
  .mapWith(Number);

/** Chatbots, always scoped to one account: another account's chatbot does not exist here. */
export function createChatbotRepository({ db }: { db: Database }) {
  return {
    /** Ordered by name (then id, for a stable order between equal names): the order of a picker. */
    async listForAccount(accountId: string): Promise<ChatbotRow[]> {
      return db.select({ ...getTableColumns(chatbots), conversations: conversationCount })
        .from(chatbots).where(eq(chatbots.accountId, accountId))
        .orderBy(asc(chatbots.name), asc(chatbots.id));
    },

    async findForAccount(accountId: string, id: string): Promise<ChatbotRow | null> {
      const [row] = await db.select({ ...getTableColumns(chatbots), conversations: conversationCount })
        .from(chatbots).where(and(eq(chatbots.accountId, accountId), eq(chatbots.id, id))).limit(1);
      return row ?? null;
    },

    /** A new chatbot of the account, not yet integrated (no events until its snippet is embedded). */
    async create(accountId: string, input: { name: string; language: string; abTestEnabled: boolean }): Promise<ChatbotRow> {
      const [row] = await db.insert(chatbots).values({
        accountId, name: input.name, language: input.language, settings: { abTestEnabled: input.abTestEnabled },
      }).returning();
      return { ...row, conversations: 0 };
    },

    async existsForAccount(accountId: string, id: string): Promise<boolean> {
      const [row] = await db.select({ id: chatbots.id }).from(chatbots)
        .where(and(eq(chatbots.accountId, accountId), eq(chatbots.id, id))).limit(1);
      return Boolean(row);
    },
  };
}
export type ChatbotRepository = ReturnType<typeof createChatbotRepository>;
