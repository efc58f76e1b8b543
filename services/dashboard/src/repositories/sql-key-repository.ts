import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { sqlApiKeys, type Database } from '@chatlytics/postgres';
import { credentialKind, digestsEqual, displayPrefix, generateCredential, sha256Hex } from '../crypto/credentials.js';

/** A key as listed: never the key itself nor its digest. */
export interface SqlKeyInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  queriesPerHour: number | null;
  readRowsPerHour: number | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
/** A key as JSON (the management API and the CLI print the same shape). */
export const presentSqlKey = (k: SqlKeyInfo) => ({
  ...k, createdAt: k.createdAt.toISOString(), expiresAt: iso(k.expiresAt), revokedAt: iso(k.revokedAt), lastUsedAt: iso(k.lastUsedAt),
});

export interface NewSqlKey {
  name: string;
  expiresAt?: Date | null;
  queriesPerHour?: number | null;
  readRowsPerHour?: number | null;
}

/** What the SQL interface needs of a valid key: its name and its own quota, if any. */
export interface SqlKeyPrincipal {
  name: string;
  quota?: { queriesPerHour: number; readRowsPerHour: number };
}

const INFO = {
  id: sqlApiKeys.id, name: sqlApiKeys.name, prefix: sqlApiKeys.prefix, createdAt: sqlApiKeys.createdAt,
  expiresAt: sqlApiKeys.expiresAt, revokedAt: sqlApiKeys.revokedAt, lastUsedAt: sqlApiKeys.lastUsedAt,
  queriesPerHour: sqlApiKeys.queriesPerHour, readRowsPerHour: sqlApiKeys.readRowsPerHour,
};

/** last_used_at is refreshed at most this often: a write per query is not worth a value shown to the minute. */
const TOUCH_INTERVAL_MS = 60_000;

/** The data team's named SQL keys (create, list, revoke, and resolve for the SQL interface). */
export function createSqlKeyRepository({ db }: { db: Database }) {
  return {
    /** A new key; `key` is returned here only. Null when an active key already has the name. */
    async create(input: NewSqlKey): Promise<(SqlKeyInfo & { key: string }) | null> {
      const [taken] = await db.select({ id: sqlApiKeys.id }).from(sqlApiKeys)
        .where(and(eq(sqlApiKeys.name, input.name), isNull(sqlApiKeys.revokedAt))).limit(1);
      if (taken) return null;
      const key = generateCredential('sql_key');
      const [row] = await db.insert(sqlApiKeys).values({
        name: input.name, keyHash: sha256Hex(key), prefix: displayPrefix(key), expiresAt: input.expiresAt ?? null,
        queriesPerHour: input.queriesPerHour ?? null, readRowsPerHour: input.readRowsPerHour ?? null,
      }).returning(INFO);
      return { ...row, key };
    },

    async list(): Promise<SqlKeyInfo[]> {
      return db.select(INFO).from(sqlApiKeys).orderBy(asc(sqlApiKeys.createdAt));
    },

    /** Revokes the active key with this id or name; null when there is none. */
    async revoke(idOrName: string, now = new Date()): Promise<SqlKeyInfo | null> {
      const isId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrName);
      const [row] = await db.update(sqlApiKeys).set({ revokedAt: now })
        .where(and(isId ? eq(sqlApiKeys.id, idOrName) : eq(sqlApiKeys.name, idOrName), isNull(sqlApiKeys.revokedAt)))
        .returning(INFO);
      return row ?? null;
    },

    /**
     * The principal of a plain key, or null when it is unknown, revoked or expired. `defaults`
     * fills the half of a quota a key does not set itself.
     */
    async resolve(plain: string, defaults: { queriesPerHour: number; readRowsPerHour: number }, now = new Date()): Promise<SqlKeyPrincipal | null> {
      if (credentialKind(plain) !== 'sql_key') return null;
      const digest = sha256Hex(plain);
      const [row] = await db.select({ ...INFO, keyHash: sqlApiKeys.keyHash }).from(sqlApiKeys)
        .where(eq(sqlApiKeys.keyHash, digest)).limit(1);
      if (!row || !digestsEqual(row.keyHash, digest) || row.revokedAt) return null;
      if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return null;
      if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= TOUCH_INTERVAL_MS) {
        await db.update(sqlApiKeys).set({ lastUsedAt: sql`now()` }).where(eq(sqlApiKeys.id, row.id));
      }
      const own = row.queriesPerHour !== null || row.readRowsPerHour !== null;
      return {
        name: row.name,
        quota: own ? { queriesPerHour: row.queriesPerHour ?? defaults.queriesPerHour, readRowsPerHour: row.readRowsPerHour ?? defaults.readRowsPerHour } : undefined,
      };
    },
  };
}
export type SqlKeyRepository = ReturnType<typeof createSqlKeyRepository>;
