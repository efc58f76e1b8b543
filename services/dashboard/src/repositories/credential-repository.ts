import { and, asc, eq, sql } from 'drizzle-orm';
import { apiKeys, authTokens, users, type Database } from '@chatlytics/postgres';
import { once } from './once.js';
import { credentialKind, digestsEqual, displayPrefix, generateCredential, sha256Hex } from '../crypto/credentials.js';

/** An account API key as listed: never the key itself nor its digest. */
export interface ApiKeyInfo { id: string; name: string; prefix: string; createdAt: Date; lastUsedAt: Date | null }

const API_KEY_INFO = { id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, createdAt: apiKeys.createdAt, lastUsedAt: apiKeys.lastUsedAt };

/** A key as JSON (the management API and the CLI print the same shape). */
export const presentApiKey = (k: ApiKeyInfo) => ({
  id: k.id, name: k.name, prefix: k.prefix, createdAt: k.createdAt.toISOString(), lastUsedAt: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
});

export interface CredentialPrincipal {
  accountId: string;
  /** The user behind an auth token; API keys belong to the account, not to a user. */
  userId: string | null;
  via: 'api_key' | 'token';
}

/**
 * A successful use refreshes `last_used_at` at most this often: a write per request would put
 * a hot row update on every dashboard call for the sake of a value shown to the minute.
 */
const TOUCH_INTERVAL_MS = 60_000;

export function createCredentialRepository({ db }: { db: Database }) {
  const stale = (lastUsedAt: Date | null, now: Date) => !lastUsedAt || now.getTime() - lastUsedAt.getTime() >= TOUCH_INTERVAL_MS;
  // Every API request starts with this lookup: built once (on first use) rather than rendered per call.
  const apiKeyByDigest = once(() => db.select().from(apiKeys).where(eq(apiKeys.keyHash, sql.placeholder('digest'))).limit(1)
    .prepare('dashboard_api_key_by_digest'));

  return {
    /** The principal of a plain API key or auth token, or null when it is unknown or expired. */
    async resolve(plain: string, now = new Date()): Promise<CredentialPrincipal | null> {
      const kind = credentialKind(plain);
      // SQL keys open the SQL interface only (sql-key-repository.ts), never the dashboard.
      if (!kind || kind === 'sql_key') return null;
      const digest = sha256Hex(plain);
      if (kind === 'api_key') {
        const [row] = await apiKeyByDigest().execute({ digest });
        // The lookup is by digest; the constant-time comparison guards against any index-side leak.
        if (!row || !digestsEqual(row.keyHash, digest)) return null;
        if (stale(row.lastUsedAt, now)) await db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id));
        return { accountId: row.accountId, userId: null, via: 'api_key' };
      }
      const [row] = await db
        .select({ id: authTokens.id, tokenHash: authTokens.tokenHash, userId: authTokens.userId, accountId: users.accountId,
          lastUsedAt: authTokens.lastUsedAt, expiresAt: authTokens.expiresAt })
        .from(authTokens).innerJoin(users, eq(users.id, authTokens.userId))
        .where(eq(authTokens.tokenHash, digest)).limit(1);
      if (!row || !digestsEqual(row.tokenHash, digest)) return null;
      if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return null;
      if (stale(row.lastUsedAt, now)) await db.update(authTokens).set({ lastUsedAt: now }).where(eq(authTokens.id, row.id));
      return { accountId: row.accountId, userId: row.userId, via: 'token' };
    },

    /** Issue an API key; `key` registers a given plain key (fixtures), else a new one is drawn. */
    async createApiKey(input: { accountId: string; name?: string; key?: string }): Promise<ApiKeyInfo & { key: string }> {
      const key = input.key ?? generateCredential('api_key');
      const [row] = await db.insert(apiKeys).values({
        accountId: input.accountId, name: input.name ?? '', keyHash: sha256Hex(key), prefix: displayPrefix(key),
      }).returning(API_KEY_INFO);
      return { ...row, key };
    },

    /** The account's API keys, oldest first. */
    async listApiKeys(accountId: string): Promise<ApiKeyInfo[]> {
      return db.select(API_KEY_INFO).from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
    },

    /**
     * Deletes the account's key: the row is the key's only trace, so its next request gets 401.
     * Null when the account has no such key (another account's key included).
     */
    async revokeApiKey(accountId: string, id: string): Promise<ApiKeyInfo | null> {
      const [row] = await db.delete(apiKeys).where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, id))).returning(API_KEY_INFO);
      return row ?? null;
    },

    async createAuthToken(input: { userId: string; name?: string; expiresAt?: Date | null }): Promise<{ id: string; token: string }> {
      const token = generateCredential('token');
      const [row] = await db.insert(authTokens).values({
        userId: input.userId, name: input.name ?? '', tokenHash: sha256Hex(token), expiresAt: input.expiresAt ?? null,
      }).returning({ id: authTokens.id });
      return { id: row.id, token };
    },

    /** Revoke every auth token of a user (e.g. after a password reset). */
    async deleteAuthTokensOfUser(userId: string): Promise<void> {
      await db.delete(authTokens).where(eq(authTokens.userId, userId));
    },
  };
}
export type CredentialRepository = ReturnType<typeof createCredentialRepository>;
