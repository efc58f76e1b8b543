import { sql, type SQL } from 'drizzle-orm';
import {
  boolean, check, customType, date, foreignKey, index, integer, jsonb, numeric, pgTable, real, text, timestamp, unique, uuid,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import { accounts, createdAt, updatedAt } from './accounts.js';

export interface ChatbotSettings {
  companyName?: string | null;
  supportEmail?: string | null;
  abTestEnabled?: boolean;
  extraTagName?: string | null;
  [key: string]: unknown;
}

export interface ExtraTag {
  name: string;
  value: string;
}

export const chatbots = pgTable('chatbots', {
  id: uuid('id').primaryKey().defaultRandom(),
  accountId: uuid('account_id').notNull().references(() => accounts.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  status: text('status').notNull().default('active'),
  language: text('language').notNull().default('en'),
  integratedAt: date('integrated_at', { mode: 'string' }),
  settings: jsonb('settings').$type<ChatbotSettings>().notNull().default({}),
  /**
   * The shop's browser origins (services/ingest/README.md, "Per-chatbot origins"): a browser
   * event from any other origin is refused. Empty: any origin.
   */
  allowedOrigins: text('allowed_origins').array().notNull().default(sql`'{}'::text[]`),
  /** A purchase worth more EUR than this is set aside, not counted (DEFAULT_MAX_PURCHASE_EUR). */
  maxPurchaseEur: numeric('max_purchase_eur', { mode: 'number' }).notNull().default(100000),
  /** Only purchases signed with purchase_signing_secret count (and claim their order number). */
  requireSignedPurchases: boolean('require_signed_purchases').notNull().default(false),
  /**
   * The HMAC key of signed purchases. In clear because the ingest computes the HMAC with it;
   * shown once when generated and never returned by the API or the pages afterwards.
   */
  purchaseSigningSecret: text('purchase_signing_secret'),
  /**
   * Orders from the shop's backend (services/ingest/README.md, "Orders"). The orders key's
   * SHA-256 (hex): the key itself is shown once and never stored.
   */
  ordersKeyHash: text('orders_key_hash'),
  /** HMAC key of X-Chatlytics-Signature on POST /api/orders. In clear: the ingest computes the HMAC. */
  ordersSigningSecret: text('orders_signing_secret'),
  /** The Shopify app's webhook secret (X-Shopify-Hmac-Sha256). In clear for the same reason; write-only in the API. */
  shopifyWebhookSecret: text('shopify_webhook_secret'),
  /** The WooCommerce webhook's secret (X-WC-Webhook-Signature). In clear; write-only in the API. */
  woocommerceWebhookSecret: text('woocommerce_webhook_secret'),
  /** Where purchases and revenue come from: 'tracker' (purchase events) or 'orders' (the shop's orders). */
  revenueSource: text('revenue_source').notNull().default('tracker'),
  /** An order is after chat when its token started a conversation within this many days before it. */
  attributionWindowDays: integer('attribution_window_days').notNull().default(7),
  /**
   * Days a visitor's raw rows are kept (README.md, "Personal data"): events and conversations
   * older than this are deleted by the dashboard's retention loop. RETENTION_DAYS_DEFAULT.
   */
  retentionDays: integer('retention_days').notNull().default(395),
  /**
   * The share of visitors (0–50 %) for whom the assistant stays hidden, to measure the revenue
   * it adds (the `lift` statistic). 0: no holdout.
   */
  holdoutPercent: integer('holdout_percent').notNull().default(0),
  /**
   * The key of the holdout assignment's HMAC (packages/events holdout.ts), random per chatbot and
   * never shown: only the ingest computes arms, so a page cannot choose its own.
   */
  holdoutKey: text('holdout_key').notNull().default(sql`gen_random_uuid()::text`),
  /**
   * The currency the app pages and the weekly digest show money in, converted from EUR by the
   * ingest's static rates (@chatlytics/events EUR_RATES); the API answers in EUR whatever it is.
   * The dashboard accepts only codes of that table; the check keeps the column to the codes' shape.
   */
  displayCurrency: text('display_currency').notNull().default('EUR'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index('chatbots_account_id_idx').on(t.accountId, t.name),
  check('chatbots_revenue_source_check', sql`${t.revenueSource} IN ('tracker', 'orders')`),
  check('chatbots_attribution_window_days_check', sql`${t.attributionWindowDays} BETWEEN 1 AND 30`),
  check('chatbots_display_currency_check', sql`${t.displayCurrency} ~ '^[A-Z]{3}$'`),
  // Target of data_sources' composite foreign key: a data source's account is its chatbot's account.
  unique('chatbots_id_account_id_key').on(t.id, t.accountId),
]);

export const dataSources = pgTable('data_sources', {
  id: uuid('id').primaryKey().defaultRandom(),
  chatbotId: uuid('chatbot_id').notNull(),
  /**
   * Denormalised from the chatbot so the account-wide listing is one index range scan;
   * the composite foreign key below keeps it equal to the chatbot's account.
   */
  accountId: uuid('account_id').notNull(),
  parentId: uuid('parent_id').references((): AnyPgColumn => dataSources.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  type: text('type').notNull(),
  subtype: text('subtype'),
  status: text('status').notNull(),
  source: text('source'),
  documentCount: integer('document_count'),
  productCount: integer('product_count'),
  autoUpdate: boolean('auto_update'),
  rawPath: text('raw_path'),
  simpleFetch: boolean('simple_fetch'),
  extraTags: jsonb('extra_tags').$type<ExtraTag[]>(),
  settings: jsonb('settings').$type<Record<string, unknown>>(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  foreignKey({ columns: [t.chatbotId, t.accountId], foreignColumns: [chatbots.id, chatbots.accountId], name: 'data_sources_chatbot_account_fk' })
    .onDelete('cascade'),
  // The dashboard lists parents of an account newest first: this partial index serves it in order.
  index('data_sources_account_parents_idx').on(t.accountId, t.createdAt.desc()).where(sql`${t.parentId} is null`),
  index('data_sources_chatbot_id_idx').on(t.chatbotId),
  index('data_sources_parent_id_idx').on(t.parentId),
]);

/** PostgreSQL's tsvector, which drizzle has no built-in column for. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * The text search configuration of chunk search. The generated column and every query must
 * use the same one, or stemmed terms stop matching.
 */
export const CHUNK_SEARCH_CONFIG = 'english';

export const chunks = pgTable('chunks', {
  id: uuid('id').primaryKey().defaultRandom(),
  dataSourceId: uuid('data_source_id').notNull().references(() => dataSources.id, { onDelete: 'cascade' }),
  index: integer('index').notNull(),
  content: text('content').notNull(),
  tokenCount: integer('token_count'),
  embedding: real('embedding').array(),
  // Generated by PostgreSQL so it can never drift from `content`; 'english' stems ("shoes" finds "shoe").
  search: tsvector('search').generatedAlwaysAs((): SQL => sql`to_tsvector('english'::regconfig, ${chunks.content})`),
}, (t) => [
  index('chunks_data_source_id_index_idx').on(t.dataSourceId, t.index),
  index('chunks_search_idx').using('gin', t.search),
]);
