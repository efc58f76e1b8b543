import { eq } from 'drizzle-orm';
import { users, type Database } from '@chatlytics/postgres';

export type UserRow = typeof users.$inferSelect;

/** E-mails are compared case-insensitively by storing them lower-cased (and trimmed). */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function createUserRepository({ db }: { db: Database }) {
  return {
    async findByEmail(email: string): Promise<UserRow | null> {
      const [row] = await db.select().from(users).where(eq(users.email, normalizeEmail(email))).limit(1);
      return row ?? null;
    },
    async findById(id: string): Promise<UserRow | null> {
      const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
      return row ?? null;
    },
    async create(input: { accountId: string; email: string; name?: string; passwordHash: string }): Promise<UserRow> {
      const [row] = await db.insert(users).values({
        accountId: input.accountId,
        email: normalizeEmail(input.email),
        name: input.name ?? '',
        passwordHash: input.passwordHash,
      }).returning();
      return row;
    },
    async updatePassword(userId: string, passwordHash: string): Promise<void> {
      await db.update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, userId));
    },
  };
}
export type UserRepository = ReturnType<typeof createUserRepository>;
