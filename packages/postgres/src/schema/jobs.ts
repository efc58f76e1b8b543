import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './accounts.js';

export const EMAIL_JOB_STATUSES = ['pending', 'running', 'sent', 'failed'] as const;
export type EmailJobStatus = (typeof EMAIL_JOB_STATUSES)[number];

/** The durable mail queue (see the e-mail rules in services/dashboard/README.md): a job survives a restart until sent or failed. */
export const emailJobs = pgTable('email_jobs', {
  id: uuid('id').primaryKey().defaultRandom(),
  kind: text('kind').notNull(),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
  status: text('status').$type<EmailJobStatus>().notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  runAt: timestamp('run_at', { withTimezone: true }).notNull().defaultNow(),
  lastError: text('last_error'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  // Workers poll "pending and due": status first, then run_at for the range.
  index('email_jobs_status_run_at_idx').on(t.status, t.runAt),
  check('email_jobs_status_check', sql`${t.status} in ('pending', 'running', 'sent', 'failed')`),
]);
