import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/** Every timestamp is timestamptz: instants, never wall-clock times of some server's zone. */
export const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

export const accounts = pgTable('accounts', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  /** CMS provider names connected to the account (`cmsProviders` of the fixture format in services/standalone/README.md). */
  cmsProviders: text('cms_providers').array().notNull().default(sql`'{}'::text[]`),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  accountId: uuid('account_id').notNull().references(() => accounts.id, { onDelete: 'cascade' }),
  /** Stored lower-cased so the plain unique index makes e-mails unique case-insensitively. */
  email: text('email').notNull(),
  name: text('name').notNull().default(''),
  /** `scrypt$N$r$p$salt$hash`: the parameters travel with the hash, so the cost can be raised later. */
  passwordHash: text('password_hash').notNull(),
  /** The weekly digest e-mail (services/dashboard/README.md "Weekly digest"): on for every new user. */
  weeklyDigest: boolean('weekly_digest').notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  uniqueIndex('users_email_key').on(t.email),
  index('users_account_id_idx').on(t.accountId),
  check('users_email_lower_case', sql`${t.email} = lower(${t.email})`),
]);

/** Account-wide API keys (`ck_…`); only the SHA-256 digest of the key is stored. */
export const apiKeys = pgTable('api_keys', {
  id: uuid('id').primaryKey().defaultRandom(),
  accountId: uuid('account_id').notNull().references(() => accounts.id, { onDelete: 'cascade' }),
  name: text('name').notNull().default(''),
  keyHash: text('key_hash').notNull(),
  /** The first characters of the key, for recognising it in a list; never enough to use it. */
  prefix: text('prefix').notNull(),
  /**
   * `read`: statistics and listings (GET) only; `manage`: every route. New keys default to
   * `read`; keys that existed before scopes were given `manage` by migration 0003, the rights they had.
   */
  scope: text('scope', { enum: ['read', 'manage'] }).notNull().default('read'),
  createdAt: createdAt(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
}, (t) => [
  uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
  index('api_keys_account_id_idx').on(t.accountId),
  check('api_keys_scope_check', sql`${t.scope} in ('read', 'manage')`),
]);

/** Personal auth tokens (`ct_…`) issued by POST /api/auth/tokens; SHA-256 digest only. */
export const authTokens = pgTable('auth_tokens', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull().default(''),
  tokenHash: text('token_hash').notNull(),
  /** The first characters of the token, for recognising it in a list; null for tokens issued before it was kept. */
  prefix: text('prefix'),
  createdAt: createdAt(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  /** Every token expires (AUTH_TOKEN_TTL_DAYS after issue); tokens older than migration 0003 got that migration's time + 30 days. */
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
}, (t) => [
  uniqueIndex('auth_tokens_token_hash_key').on(t.tokenHash),
  index('auth_tokens_user_id_idx').on(t.userId),
]);

/**
 * Failed log-ins counted for the throttle (services/dashboard/src/auth/login-throttle.ts), shared
 * by every dashboard process. `key` names what is counted: an account (SHA-256 of the normalised
 * e-mail, whether or not it exists), an account from one client network, or a client network.
 */
export const loginFailures = pgTable('login_failures', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  lastFailureAt: timestamp('last_failure_at', { withTimezone: true }).notNull(),
}, (t) => [index('login_failures_last_failure_at_idx').on(t.lastFailureAt)]);

/** Web sessions; `id` is the SHA-256 digest of the cookie's session id, never the id itself. */
export const sessions = pgTable('sessions', {
  id: text('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  index('sessions_user_id_idx').on(t.userId),
  index('sessions_expires_at_idx').on(t.expiresAt),
]);

/** One reset token per e-mail (see the password reset rules in services/dashboard/README.md); the token is stored as a digest. */
export const passwordResetTokens = pgTable('password_reset_tokens', {
  email: text('email').primaryKey(),
  tokenHash: text('token_hash').notNull(),
  createdAt: createdAt(),
});
