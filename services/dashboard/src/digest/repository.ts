import { and, asc, eq, isNull, lte } from 'drizzle-orm';
import { digestSends, users, type Database } from '@chatlytics/postgres';

/** The digest's rows: each user's switch (users.weekly_digest) and the weeks already queued (digest_sends). */
export function createDigestRepository({ db }: { db: Database }) {
  return {
    async enabled(userId: string): Promise<boolean | null> {
      const [row] = await db.select({ on: users.weeklyDigest }).from(users).where(eq(users.id, userId)).limit(1);
      return row ? row.on : null;
    },

    /** False when there is no such user. */
    async setEnabled(userId: string, on: boolean): Promise<boolean> {
      const rows = await db.update(users).set({ weeklyDigest: on, updatedAt: new Date() }).where(eq(users.id, userId)).returning({ id: users.id });
      return rows.length > 0;
    },

    /**
     * Users with the digest on, created before the week's send time (a user who signs up later
     * in the week has nothing to look back on), whose digest of the week is not queued yet.
     */
    async dueUsers(weekStart: string, createdBefore: Date, limit: number): Promise<{ id: string }[]> {
      return db.select({ id: users.id }).from(users)
        .leftJoin(digestSends, and(eq(digestSends.userId, users.id), eq(digestSends.weekStart, weekStart)))
        .where(and(eq(users.weeklyDigest, true), lte(users.createdAt, createdBefore), isNull(digestSends.userId)))
        .orderBy(asc(users.id))
        .limit(limit);
    },

    /**
     * Claims the user's digest of the week: true only for the one caller whose insert added the
     * row. Run it in the transaction that enqueues the mail job.
     */
    async claimWeek(userId: string, weekStart: string, now: Date): Promise<boolean> {
      const rows = await db.insert(digestSends).values({ userId, weekStart, queuedAt: now }).onConflictDoNothing()
        .returning({ userId: digestSends.userId });
      return rows.length > 0;
    },
  };
}
export type DigestRepository = ReturnType<typeof createDigestRepository>;
