import Type from 'typebox';
import type { ChatbotRow } from '../repositories/chatbot-repository.js';
import type { RevenueSettings } from '../repositories/orders-settings-repository.js';

const Secret = (shop: string, header: string) => Type.Optional(Type.Union([
  Type.String({ minLength: 8, maxLength: 256, pattern: '^\\S+$' }), Type.Null(),
], { description: `The ${shop} webhook secret (${header} is checked with it). Write-only: never returned; null removes it` }));

/** Where revenue comes from and how it is attributed (services/dashboard/docs/statistics.md, "Revenue source"). */
export const RevenueSettingsFields = {
  revenueSource: Type.Optional(Type.Union([Type.Literal('tracker'), Type.Literal('orders')], {
    description: '`tracker` (purchase events, the default) or `orders` (only the shop\'s orders count as purchases and revenue)',
  })),
  attributionWindowDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 30, description: 'An order is after chat when its token started a conversation within this many days before it (default 7)' })),
  shopifyWebhookSecret: Secret('Shopify', 'X-Shopify-Hmac-Sha256'),
  woocommerceWebhookSecret: Secret('WooCommerce', 'X-WC-Webhook-Signature'),
};

/** The revenue fields of a settings body, the ones given only. */
export function revenueSettingsOf(body: RevenueSettings & object): RevenueSettings {
  const { revenueSource, attributionWindowDays, shopifyWebhookSecret, woocommerceWebhookSecret } = body;
  return Object.fromEntries(Object.entries({ revenueSource, attributionWindowDays, shopifyWebhookSecret, woocommerceWebhookSecret }).filter(([, v]) => v !== undefined));
}

/** What a chatbot's answer says of them: the rule, and whether each credential exists. */
export const RevenueSettingsDetail = {
  revenueSource: Type.Union([Type.Literal('tracker'), Type.Literal('orders')]),
  attributionWindowDays: Type.Integer(),
  hasOrdersKey: Type.Boolean({ description: 'Whether an orders key exists (POST /api/dashboard/chatbots/{id}/orders-key); the key is only shown when generated' }),
  hasShopifyWebhookSecret: Type.Boolean(),
  hasWoocommerceWebhookSecret: Type.Boolean(),
};

export const presentRevenueSettings = (row: ChatbotRow) => ({
  revenueSource: row.revenueSource === 'orders' ? 'orders' as const : 'tracker' as const,
  attributionWindowDays: row.attributionWindowDays,
  hasOrdersKey: row.hasOrdersKey,
  hasShopifyWebhookSecret: row.hasShopifyWebhookSecret,
  hasWoocommerceWebhookSecret: row.hasWoocommerceWebhookSecret,
});
