import { and, eq, gt, lt } from 'drizzle-orm';
import { sessions, users, type Database } from '@chatlytics/postgres';
import { randomId, sha256Hex } from '../crypto/credentials.js';

export interface SessionPrincipal {
  accountId: string;
  userId: string;
  email: string;
  via: 'session';
}

/** See credential-repository: the same reasoning for `last_seen_at`. */
const TOUCH_INTERVAL_MS = 60_000;

/** Web sessions. The cookie carries the random id; the table only its SHA-256 digest. */
export function createSessionRepository({ db }: { db: Database }) {
  return {
    async create(userId: string, ttlMs: number, now = new Date()): Promise<{ sessionId: string; expiresAt: Date }> {
      const sessionId = randomId();
      const expiresAt = new Date(now.getTime() + ttlMs);
      await db.insert(sessions).values({ id: sha256Hex(sessionId), userId, createdAt: now, lastSeenAt: now, expiresAt });
      return { sessionId, expiresAt };
    },

    async resolve(sessionId: string, now = new Date()): Promise<SessionPrincipal | null> {
      const [row] = await db
        .select({ id: sessions.id, userId: sessions.userId, lastSeenAt: sessions.lastSeenAt, accountId: users.accountId, email: users.email })
        .from(sessions).innerJoin(users, eq(users.id, sessions.userId))
        .where(and(eq(sessions.id, sha256Hex(sessionId)), gt(sessions.expiresAt, now))).limit(1);
      if (!row) return null;
      if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
        await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, row.id));
      }
      return { accountId: row.accountId, userId: row.userId, email: row.email, via: 'session' };
    },

    async delete(sessionId: string): Promise<void> {
      await db.delete(sessions).where(eq(sessions.id, sha256Hex(sessionId)));
    },

    /** Log a user out everywhere (password reset invalidates existing sessions, the password reset rules in services/dashboard/README.md). */
    async deleteAllOfUser(userId: string): Promise<void> {
      await db.delete(sessions).where(eq(sessions.userId, userId));
    },

    async deleteExpired(now = new Date()): Promise<number> {
      const gone = await db.delete(sessions).where(lt(sessions.expiresAt, now)).returning({ id: sessions.id });
      return gone.length;
    },
  };
}
export type SessionRepository = ReturnType<typeof createSessionRepository>;
