import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts.js';

export const ERASURE_STATUSES = ['pending', 'complete'] as const;
export type ErasureStatus = (typeof ERASURE_STATUSES)[number];

/** What an erasure removed, per store (README.md, "Personal data"). */
export interface ErasureCounts {
  conversations?: number;
  messages?: number;
  analyses?: number;
  events?: number;
  tokenIds?: number;
  orders?: number;
}

/**
 * The audit of erasing one visitor (`DELETE /api/dashboard/chatbots/{id}/visitors/{token}`): who,
 * when, which chatbot, the token only as keyed hashes, what was removed. `id` is the receipt.
 * Kept after the chatbot is deleted (no foreign key on it): the record of an erasure outlives
 * the data it erased. `token_digest` (unkeyed SHA-256 of chatbot id, a zero byte and the token,
 * as ClickHouse's erased_tokens holds it) lets the job find the token's rows again.
 */
export const visitorErasures = pgTable('visitor_erasures', {
  id: uuid('id').primaryKey().defaultRandom(),
  accountId: uuid('account_id').notNull().references(() => accounts.id, { onDelete: 'cascade' }),
  chatbotId: uuid('chatbot_id').notNull(),
  /** The user of the session or token, or null for an API key (then credential_id says which). */
  requestedByUserId: uuid('requested_by_user_id'),
  requestedByCredentialId: uuid('requested_by_credential_id'),
  /** HMAC-SHA256 of chatbot id, a zero byte and the token, under a key derived from the session secret. */
  tokenHmac: text('token_hmac').notNull(),
  tokenDigest: text('token_digest').notNull(),
  status: text('status').$type<ErasureStatus>().notNull().default('pending'),
  removed: jsonb('removed').$type<ErasureCounts>().notNull().default({}),
  requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
  completedAt: timestamp('completed_at', { withTimezone: true }),
}, (t) => [
  index('visitor_erasures_account_idx').on(t.accountId, t.requestedAt),
  check('visitor_erasures_status_check', sql`${t.status} in ('pending', 'complete')`),
]);
