import { sql } from 'drizzle-orm';
import { boolean, check, doublePrecision, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './accounts.js';
import { chatbots } from './chatbots.js';

export const ALERT_KINDS = ['silence', 'conversion_drop', 'dislike_share', 'ab_mismatch'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export const ALERT_STATES = ['ok', 'firing'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/**
 * A chat-health alert of one chatbot (services/dashboard/README.md, "Alerts"). `state` is the
 * last recorded one: the evaluator moves it only by a compare-and-set on it, together with the
 * transition row and its notifications. `secret` signs webhook bodies, so it is kept in clear;
 * the API shows it once, at creation.
 */
export const alerts = pgTable('alerts', {
  id: uuid('id').primaryKey().defaultRandom(),
  chatbotId: uuid('chatbot_id').notNull().references(() => chatbots.id, { onDelete: 'cascade' }),
  kind: text('kind').$type<AlertKind>().notNull(),
  threshold: doublePrecision('threshold'),
  windowMinutes: integer('window_minutes').notNull(),
  email: boolean('email').notNull().default(false),
  webhookUrl: text('webhook_url'),
  secret: text('secret').notNull(),
  state: text('state').$type<AlertState>().notNull().default('ok'),
  lastValue: doublePrecision('last_value'),
  lastEvaluatedAt: timestamp('last_evaluated_at', { withTimezone: true }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index('alerts_chatbot_id_idx').on(t.chatbotId, t.createdAt),
  check('alerts_kind_check', sql`${t.kind} in ('silence', 'conversion_drop', 'dislike_share', 'ab_mismatch')`),
  check('alerts_state_check', sql`${t.state} in ('ok', 'firing')`),
  check('alerts_window_minutes_check', sql`${t.windowMinutes} >= 1`),
]);

/** Every change of an alert's state: `firing` or `resolved` (back to ok), with the figure that caused it. */
export const alertTransitions = pgTable('alert_transitions', {
  id: uuid('id').primaryKey().defaultRandom(),
  alertId: uuid('alert_id').notNull().references(() => alerts.id, { onDelete: 'cascade' }),
  state: text('state').$type<'firing' | 'resolved'>().notNull(),
  value: doublePrecision('value'),
  at: timestamp('at', { withTimezone: true }).notNull(),
}, (t) => [
  index('alert_transitions_alert_id_at_idx').on(t.alertId, t.at.desc()),
  check('alert_transitions_state_check', sql`${t.state} in ('firing', 'resolved')`),
]);
