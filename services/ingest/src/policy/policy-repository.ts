import { eq } from 'drizzle-orm';
import { chatbots, type Database } from '@chatlytics/postgres';
import type { ChatbotPolicyRow } from './chatbot-policy.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The tracking endpoint's read of `chatbots`: one chatbot's enforcement settings, nothing else. */
export function createChatbotPolicyRepository({ db }: { db: Database }) {
  return {
    async find(chatbotId: string): Promise<ChatbotPolicyRow | null> {
      // data.chatbot_id is free text from the page: anything but a UUID names no chatbot.
      if (!UUID.test(chatbotId)) return null;
      const [row] = await db.select({
        allowedOrigins: chatbots.allowedOrigins,
        maxPurchaseEur: chatbots.maxPurchaseEur,
        requireSignedPurchases: chatbots.requireSignedPurchases,
        signingSecret: chatbots.purchaseSigningSecret,
        holdoutPercent: chatbots.holdoutPercent,
        holdoutKey: chatbots.holdoutKey,
      }).from(chatbots).where(eq(chatbots.id, chatbotId.toLowerCase())).limit(1);
      return row ?? null;
    },
  };
}
export type ChatbotPolicyRepository = ReturnType<typeof createChatbotPolicyRepository>;
