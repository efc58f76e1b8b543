import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import { emailJobs, type Database } from '@chatlytics/postgres';

export type EmailJobRow = typeof emailJobs.$inferSelect;
export type EmailJobPayload = Record<string, unknown>;

const nextAttempt = sql`${emailJobs.attempts} + 1`;

/** The durable mail queue in PostgreSQL (table email_jobs, the e-mail rules in services/dashboard/README.md). */
export function createEmailJobRepository({ db }: { db: Database }) {
  return {
    async enqueue(kind: string, payload: EmailJobPayload, runAt: Date): Promise<string> {
      const [row] = await db.insert(emailJobs).values({ kind, payload, runAt, createdAt: runAt, updatedAt: runAt })
        .returning({ id: emailJobs.id });
      return row.id;
    },

    /**
     * Take the oldest due job. One statement, so it is atomic on its own (PGlite has a single
     * connection and no separate transaction is needed); SKIP LOCKED lets several processes
     * share the table against a server without waiting on each other or taking the same job.
     * A `running` job whose lease ran out belongs to a worker that died: it is due again.
     * The attempt is counted at the claim, so a job that kills its worker still runs out of attempts.
     */
    async claimNext(now: Date, leaseMs: number): Promise<EmailJobRow | null> {
      const due = db.select({ id: emailJobs.id }).from(emailJobs)
        .where(and(inArray(emailJobs.status, ['pending', 'running']), lte(emailJobs.runAt, now)))
        .orderBy(asc(emailJobs.runAt), asc(emailJobs.id))
        .limit(1)
        .for('update', { skipLocked: true });
      const [row] = await db.update(emailJobs)
        .set({ status: 'running', attempts: nextAttempt, runAt: new Date(now.getTime() + leaseMs), updatedAt: now })
        .where(inArray(emailJobs.id, due))
        .returning();
      return row ?? null;
    },

    async markSent(id: string, payload: EmailJobPayload, now: Date): Promise<void> {
      await db.update(emailJobs).set({ status: 'sent', payload, lastError: null, updatedAt: now }).where(eq(emailJobs.id, id));
    },

    async retryAt(id: string, runAt: Date, error: string, now: Date): Promise<void> {
      await db.update(emailJobs).set({ status: 'pending', runAt, lastError: error, updatedAt: now }).where(eq(emailJobs.id, id));
    },

    async markFailed(id: string, error: string, now: Date): Promise<void> {
      await db.update(emailJobs).set({ status: 'failed', lastError: error, updatedAt: now }).where(eq(emailJobs.id, id));
    },

    /** A job with nothing to send (no such account, throttled): no trace of the address is kept. */
    async delete(id: string): Promise<void> {
      await db.delete(emailJobs).where(eq(emailJobs.id, id));
    },

    async updatePayload(id: string, payload: EmailJobPayload): Promise<void> {
      await db.update(emailJobs).set({ payload }).where(eq(emailJobs.id, id));
    },

    async find(id: string): Promise<EmailJobRow | null> {
      const [row] = await db.select().from(emailJobs).where(eq(emailJobs.id, id)).limit(1);
      return row ?? null;
    },
  };
}
export type EmailJobRepository = ReturnType<typeof createEmailJobRepository>;
