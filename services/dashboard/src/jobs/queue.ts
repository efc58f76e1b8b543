import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import { jobs, type Database } from '@chatlytics/postgres';

export type JobRow = typeof jobs.$inferSelect;
export type JobPayload = Record<string, unknown>;

const nextAttempt = sql`${jobs.attempts} + 1`;

/** The durable queue in PostgreSQL (table jobs; the e-mail and webhook rules of the dashboard README). */
export function createJobQueue({ db }: { db: Database }) {
  return {
    async enqueue(kind: string, payload: JobPayload, runAt: Date): Promise<string> {
      const [row] = await db.insert(jobs).values({ kind, payload, runAt, createdAt: runAt, updatedAt: runAt }).returning({ id: jobs.id });
      return row.id;
    },

    /**
     * Take the oldest due job of `kinds` (all kinds when absent). One statement, so it is atomic
     * on its own (PGlite has a single connection and no separate transaction is needed); SKIP
     * LOCKED lets several processes share the table against a server without waiting on each
     * other or taking the same job. A `running` job whose lease ran out belongs to a worker that
     * died: it is due again. The attempt is counted at the claim, so a job that kills its worker
     * still runs out of attempts.
     */
    async claimNext(now: Date, leaseMs: number, kinds?: readonly string[]): Promise<JobRow | null> {
      const due = db.select({ id: jobs.id }).from(jobs)
        .where(and(inArray(jobs.status, ['pending', 'running']), lte(jobs.runAt, now), kinds ? inArray(jobs.kind, [...kinds]) : undefined))
        .orderBy(asc(jobs.runAt), asc(jobs.id))
        .limit(1)
        .for('update', { skipLocked: true });
      const [row] = await db.update(jobs)
        .set({ status: 'running', attempts: nextAttempt, runAt: new Date(now.getTime() + leaseMs), updatedAt: now })
        .where(inArray(jobs.id, due))
        .returning();
      return row ?? null;
    },

    async markSent(id: string, payload: JobPayload, now: Date): Promise<void> {
      await db.update(jobs).set({ status: 'sent', payload, lastError: null, updatedAt: now }).where(eq(jobs.id, id));
    },

    async retryAt(id: string, runAt: Date, error: string, now: Date): Promise<void> {
      await db.update(jobs).set({ status: 'pending', runAt, lastError: error, updatedAt: now }).where(eq(jobs.id, id));
    },

    async markFailed(id: string, error: string, now: Date): Promise<void> {
      await db.update(jobs).set({ status: 'failed', lastError: error, updatedAt: now }).where(eq(jobs.id, id));
    },

    /** A job with nothing to do (no such account, throttled, unsubscribed): no trace of it is kept. */
    async delete(id: string): Promise<void> {
      await db.delete(jobs).where(eq(jobs.id, id));
    },

    async updatePayload(id: string, payload: JobPayload): Promise<void> {
      await db.update(jobs).set({ payload }).where(eq(jobs.id, id));
    },

    async find(id: string): Promise<JobRow | null> {
      const [row] = await db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
      return row ?? null;
    },
  };
}
export type JobQueue = ReturnType<typeof createJobQueue>;
