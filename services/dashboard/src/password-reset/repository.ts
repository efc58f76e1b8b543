import { and, eq, gt, lte } from 'drizzle-orm';
import { jobs, passwordResetTokens, type Database } from '@chatlytics/postgres';

export type ResetTokenRow = typeof passwordResetTokens.$inferSelect;

/** Reset tokens (see the password reset rules in services/dashboard/README.md): one row per e-mail, holding only the token's SHA-256 digest. */
export function createResetTokenRepository({ db }: { db: Database }) {
  return {
    /**
     * Store a new token for `email` unless its current one is younger than the throttle, and
     * put the sealed token into the mail job, both in one transaction: the job can always
     * resend exactly the token that is stored. One upsert decides the throttle, so two
     * concurrent requests cannot both issue. False when throttled.
     */
    async issue(input: { email: string; tokenHash: string; now: Date; throttleSeconds: number; jobId: string; jobPayload: Record<string, unknown> }): Promise<boolean> {
      const throttledSince = new Date(input.now.getTime() - input.throttleSeconds * 1000);
      return db.transaction(async (tx) => {
        const issued = await tx.insert(passwordResetTokens)
          .values({ email: input.email, tokenHash: input.tokenHash, createdAt: input.now })
          .onConflictDoUpdate({
            target: passwordResetTokens.email,
            set: { tokenHash: input.tokenHash, createdAt: input.now },
            setWhere: lte(passwordResetTokens.createdAt, throttledSince),
          })
          .returning({ email: passwordResetTokens.email });
        if (issued.length === 0) return false;
        await tx.update(jobs).set({ payload: input.jobPayload }).where(eq(jobs.id, input.jobId));
        return true;
      });
    },

    async find(email: string): Promise<ResetTokenRow | null> {
      const [row] = await db.select().from(passwordResetTokens).where(eq(passwordResetTokens.email, email)).limit(1);
      return row ?? null;
    },

    /**
     * Single use: delete the row only if it still holds this digest and has not expired. Of two
     * concurrent resets with one token, exactly one sees `true`.
     */
    async consume(email: string, tokenHash: string, issuedAfter: Date): Promise<boolean> {
      const gone = await db.delete(passwordResetTokens)
        .where(and(eq(passwordResetTokens.email, email), eq(passwordResetTokens.tokenHash, tokenHash), gt(passwordResetTokens.createdAt, issuedAfter)))
        .returning({ email: passwordResetTokens.email });
      return gone.length === 1;
    },
  };
}
export type ResetTokenRepository = ReturnType<typeof createResetTokenRepository>;
