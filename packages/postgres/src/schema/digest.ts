import { date, pgTable, primaryKey, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './accounts.js';

/**
 * One row per user and week whose weekly digest was queued (services/dashboard/README.md
 * "Weekly digest"). Inserted in the transaction that enqueues the mail job, and the job is
 * enqueued only when the insert added the row: the key is what makes the digest go out once
 * per user and week across processes and restarts.
 */
export const digestSends = pgTable('digest_sends', {
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  /** Monday (UTC) of the ISO week the digest belongs to. */
  weekStart: date('week_start', { mode: 'string' }).notNull(),
  queuedAt: timestamp('queued_at', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.userId, t.weekStart] })]);
