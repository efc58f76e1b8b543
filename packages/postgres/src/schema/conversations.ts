import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { chatbots } from './chatbots.js';
import { createdAt, updatedAt } from './accounts.js';

export const conversations = pgTable('conversations', {
  id: uuid('id').primaryKey().defaultRandom(),
  chatbotId: uuid('chatbot_id').notNull().references(() => chatbots.id, { onDelete: 'cascade' }),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: updatedAt(),
  /**
   * The tracker token of the visitor who chatted, when the writer knows it: it links the
   * conversation to that visitor's events in ClickHouse. Null for conversations stored without one.
   */
  visitorToken: text('visitor_token'),
}, (t) => [
  index('conversations_chatbot_started_idx').on(t.chatbotId, t.startedAt),
]);

export const MESSAGE_ROLES = ['user', 'assistant'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export const messages = pgTable('messages', {
  id: uuid('id').primaryKey().defaultRandom(),
  conversationId: uuid('conversation_id').notNull().references(() => conversations.id, { onDelete: 'cascade' }),
  role: text('role').$type<MessageRole>().notNull(),
  content: text('content').notNull(),
  createdAt: createdAt(),
}, (t) => [
  index('messages_conversation_created_idx').on(t.conversationId, t.createdAt),
  check('messages_role_check', sql`${t.role} in ('user', 'assistant')`),
]);

/** The structured analysis of one conversation, input of the insights report. */
export const conversationAnalyses = pgTable('conversation_analyses', {
  conversationId: uuid('conversation_id').primaryKey().references(() => conversations.id, { onDelete: 'cascade' }),
  clickedProducts: text('clicked_products').array().notNull().default(sql`'{}'::text[]`),
  talkedAboutProducts: text('talked_about_products').array().notNull().default(sql`'{}'::text[]`),
  intents: text('intents').array().notNull().default(sql`'{}'::text[]`),
  complaints: text('complaints').array().notNull().default(sql`'{}'::text[]`),
  missingInformation: text('missing_information').array().notNull().default(sql`'{}'::text[]`),
  mood: text('mood'),
  outcome: text('outcome'),
  humanInterventionNeeded: boolean('human_intervention_needed').notNull().default(false),
  converted: boolean('converted').notNull().default(false),
  createdAt: createdAt(),
});
