import { and, asc, desc, eq, gt, sql } from 'drizzle-orm';
import { apiKeys, authTokens, users, type Database } from '@chatlytics/postgres';
import { once } from './once.js';
import { credentialKind, digestsEqual, displayPrefix, generateCredential, sha256Hex } from '../crypto/credentials.js';

/** What an API key may do: `read` = statistics and listings (GET), `manage` = every route. */
export type ApiKeyScope = 'read' | 'manage';
export const API_KEY_SCOPES: readonly ApiKeyScope[] = ['read', 'manage'];

/** An account API key as listed: never the key itself nor its digest. */
export interface ApiKeyInfo { id: string; name: string; prefix: string; scope: ApiKeyScope; createdAt: Date; lastUsedAt: Date | null }

const API_KEY_INFO = {
  id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, scope: apiKeys.scope, createdAt: apiKeys.createdAt, lastUsedAt: apiKeys.lastUsedAt,
};

/** A key as JSON (the management API and the CLI print the same shape). */
export const presentApiKey = (k: ApiKeyInfo) => ({
  id: k.id, name: k.name, prefix: k.prefix, scope: k.scope, createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
});

/** A user's auth token as listed: never the token itself nor its digest. */
export interface AuthTokenInfo { id: string; name: string; prefix: string | null; createdAt: Date; lastUsedAt: Date | null; expiresAt: Date }

const AUTH_TOKEN_INFO = {
  id: authTokens.id, name: authTokens.name, prefix: authTokens.prefix, createdAt: authTokens.createdAt,
  lastUsedAt: authTokens.lastUsedAt, expiresAt: authTokens.expiresAt,
};

/** A token as JSON; `current` marks the token the request was made with. */
export const presentAuthToken = (k: AuthTokenInfo, currentId: string | null = null) => ({
  id: k.id, name: k.name, prefix: k.prefix ?? 'ct_', createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt ? k.lastUsedAt.toISOString() : null, expiresAt: k.expiresAt.toISOString(), current: k.id === currentId,
});

export interface CredentialPrincipal {
  accountId: string;
  /** The user behind an auth token; API keys belong to the account, not to a user. */
  userId: string | null;
  via: 'api_key' | 'token';
  /** A key's own scope; a token acts for its user, with every right (`manage`). */
  scope: ApiKeyScope;
  /** The key's or token's row id (a token list marks the caller's own). */
  credentialId: string;
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
        return { accountId: row.accountId, userId: null, via: 'api_key', scope: row.scope, credentialId: row.id };
      }
      const [row] = await db
        .select({ id: authTokens.id, tokenHash: authTokens.tokenHash, userId: authTokens.userId, accountId: users.accountId,
          lastUsedAt: authTokens.lastUsedAt, expiresAt: authTokens.expiresAt })
        .from(authTokens).innerJoin(users, eq(users.id, authTokens.userId))
        .where(eq(authTokens.tokenHash, digest)).limit(1);
      if (!row || !digestsEqual(row.tokenHash, digest)) return null;
      // Expired answers like unknown: the row stays listed until revoked, but opens nothing.
      if (row.expiresAt.getTime() <= now.getTime()) return null;
      if (stale(row.lastUsedAt, now)) await db.update(authTokens).set({ lastUsedAt: now }).where(eq(authTokens.id, row.id));
      return { accountId: row.accountId, userId: row.userId, via: 'token', scope: 'manage', credentialId: row.id };
    },

    /** Issue an API key; `key` registers a given plain key (fixtures), else a new one is drawn. */
    async createApiKey(input: { accountId: string; name?: string; key?: string; scope?: ApiKeyScope }): Promise<ApiKeyInfo & { key: string }> {
      const key = input.key ?? generateCredential('api_key');
      const [row] = await db.insert(apiKeys).values({
        accountId: input.accountId, name: input.name ?? '', keyHash: sha256Hex(key), prefix: displayPrefix(key), scope: input.scope ?? 'read',
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

    /** Issue an auth token for a user, valid until `expiresAt`; the plain token is returned once. */
    async createAuthToken(input: { userId: string; name?: string; expiresAt: Date }): Promise<AuthTokenInfo & { token: string }> {
      const token = generateCredential('token');
      const [row] = await db.insert(authTokens).values({
        userId: input.userId, name: input.name ?? '', tokenHash: sha256Hex(token), prefix: displayPrefix(token), expiresAt: input.expiresAt,
      }).returning(AUTH_TOKEN_INFO);
      return { ...row, token };
    },

    /** The user's tokens that have not expired, newest first. */
    async listAuthTokens(userId: string, now: Date): Promise<AuthTokenInfo[]> {
      return db.select(AUTH_TOKEN_INFO).from(authTokens).where(and(eq(authTokens.userId, userId), gt(authTokens.expiresAt, now)))
        .orderBy(desc(authTokens.createdAt), asc(authTokens.id));
    },

    /** Deletes the user's token (its next request gets 401); null when the user has no such token. */
    async revokeAuthToken(userId: string, id: string): Promise<AuthTokenInfo | null> {
      const [row] = await db.delete(authTokens).where(and(eq(authTokens.userId, userId), eq(authTokens.id, id))).returning(AUTH_TOKEN_INFO);
      return row ?? null;
    },

    /** Revoke every auth token of a user (e.g. after a password reset). */
    async deleteAuthTokensOfUser(userId: string): Promise<void> {
      await db.delete(authTokens).where(eq(authTokens.userId, userId));
    },
  };
}
export type CredentialRepository = ReturnType<typeof createCredentialRepository>;
