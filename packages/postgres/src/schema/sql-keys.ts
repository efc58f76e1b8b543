import { sql } from 'drizzle-orm';
import { bigint, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './accounts.js';

/**
 * Named keys of the data team's SQL interface (/clickhouse), `cs_…`; only the SHA-256 digest
 * of a key is stored. Revoking keeps the row (the query log refers to keys by name), and a
 * name is unique among the keys not revoked. Null quotas mean the configured defaults.
 */
export const sqlApiKeys = pgTable('sql_api_keys', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  keyHash: text('key_hash').notNull(),
  /** The first characters of the key, for recognising it in a list; never enough to use it. */
  prefix: text('prefix').notNull(),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true }),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  queriesPerHour: integer('queries_per_hour'),
  readRowsPerHour: bigint('read_rows_per_hour', { mode: 'number' }),
}, (t) => [
  uniqueIndex('sql_api_keys_key_hash_key').on(t.keyHash),
  uniqueIndex('sql_api_keys_active_name_key').on(t.name).where(sql`${t.revokedAt} IS NULL`),
]);
