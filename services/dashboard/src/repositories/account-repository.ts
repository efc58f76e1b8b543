import { eq, sql } from 'drizzle-orm';
import {
  accounts, apiKeys, chatbots, chunks, conversationAnalyses, conversations, dataSources, messages, users,
  type ChatbotSettings, type Database, type ExtraTag, type MessageRole,
} from '@chatlytics/postgres';
import { displayPrefix, sha256Hex } from '../crypto/credentials.js';
import { normalizeEmail } from './user-repository.js';

/**
 * Accounts, and idempotent upserts by id for seeding (fixture import, the CLI's demo): applying the same
 * input twice leaves the same rows. Timestamps are only written when the input gives them,
 * so a second run does not move `updated_at`.
 */
export interface AccountInput { id: string; name: string; cmsProviders?: string[] }
export interface ChatbotInput {
  id: string; accountId: string; name: string; status?: string; language?: string; integratedAt?: string | null;
  settings?: ChatbotSettings; createdAt?: Date; updatedAt?: Date;
}
export interface DataSourceInput {
  id: string; chatbotId: string; accountId: string; parentId?: string | null; name: string; type: string;
  subtype?: string | null; status: string; source?: string | null; documentCount?: number | null; productCount?: number | null;
  autoUpdate?: boolean | null; rawPath?: string | null; simpleFetch?: boolean | null; extraTags?: ExtraTag[] | null;
  settings?: Record<string, unknown> | null; createdAt?: Date; updatedAt?: Date;
}
export interface ChunkInput { id: string; dataSourceId: string; index: number; content: string; tokenCount?: number | null; embedding?: number[] | null }
export interface ConversationInput { id: string; chatbotId: string; startedAt: Date; updatedAt?: Date; visitorToken?: string | null }
export interface MessageInput { id: string; conversationId: string; role: MessageRole; content: string; createdAt: Date }
export interface AnalysisInput {
  conversationId: string; clickedProducts?: string[]; talkedAboutProducts?: string[]; intents?: string[]; complaints?: string[];
  missingInformation?: string[]; mood?: string | null; outcome?: string | null; humanInterventionNeeded?: boolean; converted?: boolean;
}

/** Only the keys the caller gave: `undefined` means "leave as is", not "set to null". */
const given = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

export function createAccountRepository({ db }: { db: Database }) {
  /** Insert the row, or update every given column of the row with its id. */
  async function upsertById(table: typeof chatbots | typeof dataSources | typeof conversations, values: { id?: string }): Promise<void> {
    const { id: _id, ...set } = values;
    await db.insert(table).values(values as never).onConflictDoUpdate({ target: table.id, set });
  }

  return {
    /** The CMS providers connected to the account (see the endpoint details in services/dashboard/docs/api.md); empty when none or no such account. */
    async cmsProviders(accountId: string): Promise<string[]> {
      const [row] = await db.select({ cmsProviders: accounts.cmsProviders }).from(accounts).where(eq(accounts.id, accountId)).limit(1);
      return row?.cmsProviders ?? [];
    },

    async upsertAccount(a: AccountInput): Promise<void> {
      const values = { id: a.id, name: a.name, cmsProviders: a.cmsProviders ?? [] };
      await db.insert(accounts).values(values).onConflictDoUpdate({ target: accounts.id, set: { name: values.name, cmsProviders: values.cmsProviders } });
    },

    /**
     * By e-mail. `passwordHash` is only replaced when `keepPassword` says the stored one still
     * matches: re-hashing draws a new salt, which would change the row on every import.
     */
    async upsertUser(u: { accountId: string; email: string; name?: string; passwordHash: () => Promise<string>;
      keepPassword: (storedHash: string) => Promise<boolean> }): Promise<{ id: string; created: boolean }> {
      const email = normalizeEmail(u.email);
      const [existing] = await db.select().from(users).where(eq(users.email, email)).limit(1);
      if (!existing) {
        const [row] = await db.insert(users).values({ accountId: u.accountId, email, name: u.name ?? '', passwordHash: await u.passwordHash() })
          .returning({ id: users.id });
        return { id: row.id, created: true };
      }
      const keep = await u.keepPassword(existing.passwordHash);
      const changed = existing.accountId !== u.accountId || (u.name !== undefined && existing.name !== u.name) || !keep;
      if (changed) {
        await db.update(users).set({
          accountId: u.accountId, name: u.name ?? existing.name,
          passwordHash: keep ? existing.passwordHash : await u.passwordHash(), updatedAt: new Date(),
        }).where(eq(users.id, existing.id));
      }
      return { id: existing.id, created: false };
    },

    /** By the key's digest: the plain key is the identity of a fixture's API key. */
    async upsertApiKey(k: { accountId: string; name?: string; key: string; scope: 'read' | 'manage' }): Promise<void> {
      const keyHash = sha256Hex(k.key);
      await db.insert(apiKeys).values({ accountId: k.accountId, name: k.name ?? '', keyHash, prefix: displayPrefix(k.key), scope: k.scope })
        .onConflictDoUpdate({ target: apiKeys.keyHash, set: { accountId: k.accountId, name: k.name ?? '', scope: k.scope } });
    },

    upsertChatbot: (c: ChatbotInput) => upsertById(chatbots, given({ ...c, settings: c.settings ?? {} })),
    upsertDataSource: (d: DataSourceInput) => upsertById(dataSources, given(d)),

    async upsertChunks(rows: ChunkInput[]): Promise<void> {
      if (rows.length === 0) return;
      await db.insert(chunks).values(rows).onConflictDoUpdate({
        target: chunks.id,
        // `excluded` is the row that failed to insert: each chunk takes its own new values.
        set: {
          dataSourceId: sql`excluded.data_source_id`, index: sql`excluded.index`, content: sql`excluded.content`,
          tokenCount: sql`excluded.token_count`, embedding: sql`excluded.embedding`,
        },
      });
    },

    upsertConversation: (c: ConversationInput) => upsertById(conversations, given(c)),

    async upsertMessages(rows: MessageInput[]): Promise<void> {
      if (rows.length === 0) return;
      await db.insert(messages).values(rows).onConflictDoUpdate({
        target: messages.id,
        set: { conversationId: sql`excluded.conversation_id`, role: sql`excluded.role`, content: sql`excluded.content`, createdAt: sql`excluded.created_at` },
      });
    },

    async upsertAnalysis(a: AnalysisInput): Promise<void> {
      const values = given(a);
      const { conversationId: _id, ...set } = values;
      const insert = db.insert(conversationAnalyses).values(values as typeof conversationAnalyses.$inferInsert);
      await (Object.keys(set).length ? insert.onConflictDoUpdate({ target: conversationAnalyses.conversationId, set }) : insert.onConflictDoNothing());
    },
  };
}
export type AccountRepository = ReturnType<typeof createAccountRepository>;
