import { and, eq, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { chatbots, type Database } from '@chatlytics/postgres';
import { mintOrdersKey, mintOrdersSigningSecret, ordersKeyHash } from '@chatlytics/events';

/** The chatbot columns no answer or page ever shows: keys and secrets (services/ingest/README.md, "Orders"). */
export type SecretColumn = 'ordersKeyHash' | 'ordersSigningSecret' | 'shopifyWebhookSecret' | 'woocommerceWebhookSecret';

/** What the dashboard may say about them: whether each is set. */
export interface OrdersCredentialFlags { hasOrdersKey: boolean; hasShopifyWebhookSecret: boolean; hasWoocommerceWebhookSecret: boolean }

const isSet = (column: AnyPgColumn) => sql<boolean>`(${column} is not null)`.mapWith(Boolean);
export const ordersCredentialFlags = {
  hasOrdersKey: isSet(chatbots.ordersKeyHash),
  hasShopifyWebhookSecret: isSet(chatbots.shopifyWebhookSecret),
  hasWoocommerceWebhookSecret: isSet(chatbots.woocommerceWebhookSecret),
};

/** How revenue is counted for a chatbot (dashboard docs/statistics.md, "Revenue source"). */
export interface RevenueSettings {
  revenueSource?: 'tracker' | 'orders';
  attributionWindowDays?: number;
  /** null clears the secret (the receiver then refuses every webhook). */
  shopifyWebhookSecret?: string | null;
  woocommerceWebhookSecret?: string | null;
}

/** The orders settings of the account's chatbots: the orders key and the revenue rule. */
export function createOrdersSettingsRepository({ db }: { db: Database }) {
  const own = (accountId: string, id: string) => and(eq(chatbots.accountId, accountId), eq(chatbots.id, id));
  return {
    /**
     * A new orders key and signing secret replace the old ones (the ingest's cache renews
     * within 15 s). The key's SHA-256 is stored, never the key: this is the only time it is
     * returned. Null when the account has no such chatbot.
     */
    async rotateOrdersKey(accountId: string, id: string): Promise<{ ordersKey: string; ordersSigningSecret: string } | null> {
      const ordersKey = mintOrdersKey(id);
      const secret = mintOrdersSigningSecret();
      const rows = await db.update(chatbots).set({ ordersKeyHash: ordersKeyHash(ordersKey), ordersSigningSecret: secret, updatedAt: sql`now()` })
        .where(own(accountId, id)).returning({ id: chatbots.id });
      return rows.length > 0 ? { ordersKey, ordersSigningSecret: secret } : null;
    },

    /** Changes the revenue settings given; false when the account has no such chatbot. */
    async updateRevenueSettings(accountId: string, id: string, input: RevenueSettings): Promise<boolean> {
      const set = revenueColumns(input);
      if (Object.keys(set).length === 0) return true;
      const rows = await db.update(chatbots).set({ ...set, updatedAt: sql`now()` }).where(own(accountId, id)).returning({ id: chatbots.id });
      return rows.length > 0;
    },
  };
}
export type OrdersSettingsRepository = ReturnType<typeof createOrdersSettingsRepository>;

function revenueColumns(input: RevenueSettings) {
  return {
    ...(input.revenueSource !== undefined ? { revenueSource: input.revenueSource } : {}),
    ...(input.attributionWindowDays !== undefined ? { attributionWindowDays: input.attributionWindowDays } : {}),
    ...(input.shopifyWebhookSecret !== undefined ? { shopifyWebhookSecret: input.shopifyWebhookSecret } : {}),
    ...(input.woocommerceWebhookSecret !== undefined ? { woocommerceWebhookSecret: input.woocommerceWebhookSecret } : {}),
  };
}
