import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './accounts.js';

export const JOB_STATUSES = ['pending', 'running', 'sent', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * The dashboard's one durable queue: e-mails (password reset, password changed, weekly digest,
 * alert notices) and webhook deliveries, each a `kind` with its own attempts and backoff. A job
 * survives a restart until it is sent or failed; `run_at` is when it is due, and while a worker
 * holds it, when its lease ends.
 */
export const jobs = pgTable('jobs', {
  id: uuid('id').primaryKey().defaultRandom(),
  kind: text('kind').notNull(),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
  status: text('status').$type<JobStatus>().notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  runAt: timestamp('run_at', { withTimezone: true }).notNull().defaultNow(),
  lastError: text('last_error'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  // Workers poll "pending and due": status first, then run_at for the range.
  index('jobs_status_run_at_idx').on(t.status, t.runAt),
  check('jobs_status_check', sql`${t.status} in ('pending', 'running', 'sent', 'failed')`),
]);
