import { and, asc, eq } from 'drizzle-orm';
import { chatbots, conversationAnalyses, conversations, messages, type Database } from '@chatlytics/postgres';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ConversationDetail {
  id: string;
  chatbotId: string;
  startedAt: Date;
  /** The visitor's tracker token, when the conversation was stored with one. */
  visitorToken: string | null;
  messages: { role: string; content: string; createdAt: Date }[];
  analysis: typeof conversationAnalyses.$inferSelect | null;
}

/** Conversations, always scoped to one account and chatbot: another account's id does not exist here. */
export function createConversationRepository({ db }: { db: Database }) {
  return {
    async findForAccount(accountId: string, chatbotId: string, conversationId: string): Promise<ConversationDetail | null> {
      // uuid columns: any other text names nothing (and would be a SQL error).
      if (![accountId, chatbotId, conversationId].every((id) => UUID.test(id))) return null;
      const [row] = await db
        .select({ id: conversations.id, chatbotId: conversations.chatbotId, startedAt: conversations.startedAt, visitorToken: conversations.visitorToken })
        .from(conversations)
        .innerJoin(chatbots, eq(chatbots.id, conversations.chatbotId))
        .where(and(eq(conversations.id, conversationId), eq(conversations.chatbotId, chatbotId), eq(chatbots.accountId, accountId)))
        .limit(1);
      if (!row) return null;
      const [list, [analysis]] = await Promise.all([
        db.select({ role: messages.role, content: messages.content, createdAt: messages.createdAt })
          .from(messages).where(eq(messages.conversationId, row.id))
          // id breaks ties between messages of the same instant, so the order never flips between loads.
          .orderBy(asc(messages.createdAt), asc(messages.id)),
        db.select().from(conversationAnalyses).where(eq(conversationAnalyses.conversationId, row.id)).limit(1),
      ]);
      return { ...row, messages: list, analysis: analysis ?? null };
    },
  };
}
export type ConversationRepository = ReturnType<typeof createConversationRepository>;
