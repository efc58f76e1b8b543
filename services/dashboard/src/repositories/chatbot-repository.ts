import { randomBytes } from 'node:crypto';
import { and, asc, eq, getTableColumns, sql } from 'drizzle-orm';
import { chatbots, type Database } from '@chatlytics/postgres';
import { ordersCredentialFlags, type OrdersCredentialFlags, type SecretColumn } from './orders-settings-repository.js';

/** A chatbot as the dashboard sees it: never a secret or key (hash), only whether it has one. */
export type ChatbotRow = Omit<typeof chatbots.$inferSelect, 'purchaseSigningSecret' | 'holdoutKey' | SecretColumn> & { conversations: number; hasSigningSecret: boolean } & OrdersCredentialFlags;

/** The settings the tracking endpoint enforces (services/ingest/README.md); all optional in a change. */
export interface ChatbotTrackingSettings {
  allowedOrigins?: string[];
  maxPurchaseEur?: number;
  requireSignedPurchases?: boolean;
  /** Days a visitor's raw rows are kept (privacy/retention-days.ts). */
  retentionDays?: number;
  /** The holdout's share of visitors, 0–50 (issue 61, the `lift` statistic). */
  holdoutPercent?: number;
  /** The currency the pages show money in (html/money.ts); the tracking endpoint ignores it. */
  displayCurrency?: string;
}

/** 32 random bytes: the HMAC key a shop's backend signs its purchases with; shown once. */
export const newSigningSecret = () => `cps_${randomBytes(32).toString('base64url')}`;

// No secret leaves the repository: the signing secret is shown once, the holdout key never.
const { purchaseSigningSecret, holdoutKey: _holdoutKey, ordersKeyHash, ordersSigningSecret, shopifyWebhookSecret, woocommerceWebhookSecret, ...visibleColumns } = getTableColumns(chatbots);
const hasSigningSecret = sql<boolean>`(${purchaseSigningSecret} is not null)`.mapWith(Boolean);
const returned = { ...visibleColumns, hasSigningSecret, ...ordersCredentialFlags };

// Spelled out: drizzle renders columns unqualified inside a single-table select, and an
// unqualified `id` in this subquery would mean the conversation's own id.
const conversationCount = sql<number>`(select count(*)::int from conversations cv where cv.chatbot_id = "chatbots"."id")`
  .mapWith(Number);

/** Chatbots, always scoped to one account: another account's chatbot does not exist here. */
export function createChatbotRepository({ db }: { db: Database }) {
  async function findForAccount(accountId: string, id: string): Promise<ChatbotRow | null> {
    const [row] = await db.select({ ...returned, conversations: conversationCount })
      .from(chatbots).where(and(eq(chatbots.accountId, accountId), eq(chatbots.id, id))).limit(1);
    return row ?? null;
  }

  return {
    /** Ordered by name (then id, for a stable order between equal names): the order of a picker. */
    async listForAccount(accountId: string): Promise<ChatbotRow[]> {
      return db.select({ ...returned, conversations: conversationCount })
        .from(chatbots).where(eq(chatbots.accountId, accountId))
        .orderBy(asc(chatbots.name), asc(chatbots.id));
    },

    findForAccount,

    /** A new chatbot of the account, not yet integrated (no events until its snippet is embedded). */
    async create(accountId: string, input: { name: string; language: string; abTestEnabled: boolean } & ChatbotTrackingSettings): Promise<ChatbotRow> {
      const [row] = await db.insert(chatbots).values({
        accountId, name: input.name, language: input.language, settings: { abTestEnabled: input.abTestEnabled },
        ...trackingColumns(input),
      }).returning(returned);
      return { ...row, conversations: 0 };
    },

    /** Changes the tracking settings given; null when the account has no such chatbot. */
    async updateTrackingSettings(accountId: string, id: string, input: ChatbotTrackingSettings): Promise<ChatbotRow | null> {
      const set = trackingColumns(input);
      if (Object.keys(set).length > 0) {
        await db.update(chatbots).set({ ...set, updatedAt: sql`now()` })
          .where(and(eq(chatbots.accountId, accountId), eq(chatbots.id, id)));
      }
      return findForAccount(accountId, id);
    },

    /**
     * A new purchase signing secret replaces the old one at once (purchases signed with the old
     * one stop counting when the ingest's cache renews, within 15 s); the only time it is returned.
     */
    async rotateSigningSecret(accountId: string, id: string): Promise<string | null> {
      const secret = newSigningSecret();
      const rows = await db.update(chatbots).set({ purchaseSigningSecret: secret, updatedAt: sql`now()` })
        .where(and(eq(chatbots.accountId, accountId), eq(chatbots.id, id))).returning({ id: chatbots.id });
      return rows.length > 0 ? secret : null;
    },

    async existsForAccount(accountId: string, id: string): Promise<boolean> {
      const [row] = await db.select({ id: chatbots.id }).from(chatbots)
        .where(and(eq(chatbots.accountId, accountId), eq(chatbots.id, id))).limit(1);
      return Boolean(row);
    },
  };
}
export type ChatbotRepository = ReturnType<typeof createChatbotRepository>;

function trackingColumns(input: ChatbotTrackingSettings) {
  return {
    ...(input.allowedOrigins !== undefined ? { allowedOrigins: input.allowedOrigins } : {}),
    ...(input.maxPurchaseEur !== undefined ? { maxPurchaseEur: input.maxPurchaseEur } : {}),
    ...(input.requireSignedPurchases !== undefined ? { requireSignedPurchases: input.requireSignedPurchases } : {}),
    ...(input.retentionDays !== undefined ? { retentionDays: input.retentionDays } : {}),
    ...(input.holdoutPercent !== undefined ? { holdoutPercent: input.holdoutPercent } : {}),
    ...(input.displayCurrency !== undefined ? { displayCurrency: input.displayCurrency } : {}),
  };
}
