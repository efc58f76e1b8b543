import { randomUUID } from 'node:crypto';
import { createPostgres, type Database } from '@chatlytics/postgres';
import {
  createAccountRepository, createChatbotRepository, createCredentialRepository, createUserRepository, embedFor, hashPassword, presentApiKey,
} from '@chatlytics/dashboard';
import { UsageError } from './args.js';
import type { CommandContext } from './context.js';
import type { CommandInput } from './spec.js';

/** Account commands touch PostgreSQL only: not loading or starting ClickHouse saves seconds per call. */
export async function withPostgres<T>(ctx: CommandContext, fn: (db: Database) => Promise<T>): Promise<T> {
  if (ctx.stores) return fn(ctx.stores.postgres.db);
  const postgres = await createPostgres({ databaseUrl: ctx.config.databaseUrl, dataDir: ctx.config.dataDir, log: ctx.log });
  try {
    await postgres.migrate();
    return await fn(postgres.db);
  } finally {
    await postgres.close();
  }
}

/** `users:create`: a new account named `account` (default: the e-mail) with one user. */
export async function createUser(ctx: CommandContext, input: { email: string; password: string; account?: string }) {
  const passwordHash = await hashPassword(input.password);
  // One transaction: a failed user insert leaves no account without users behind.
  return withPostgres(ctx, (pg) => pg.transaction(async (tx) => {
    const db = tx as unknown as Database;
    const users = createUserRepository({ db });
    if (await users.findByEmail(input.email)) throw new UsageError(`a user with e-mail ${input.email} already exists`);
    const accountId = randomUUID();
    await createAccountRepository({ db }).upsertAccount({ id: accountId, name: input.account ?? input.email, cmsProviders: [] });
    const user = await users.create({ accountId, email: input.email, passwordHash });
    return { id: user.id, email: input.email, accountId };
  }));
}

async function accountOf(db: Database, email: string): Promise<string> {
  const user = await createUserRepository({ db }).findByEmail(email);
  if (!user) throw new UsageError(`no user with e-mail ${email}`);
  return user.accountId;
}

/** `api-keys:create`: a key for the user's account, shown once (only its digest is stored). */
export async function createApiKey(ctx: CommandContext, input: { email: string; name?: string; scope: 'read' | 'manage' }) {
  return withPostgres(ctx, async (db) => {
    const created = await createCredentialRepository({ db }).createApiKey({ accountId: await accountOf(db, input.email), name: input.name, scope: input.scope });
    return { ...presentApiKey(created), key: created.key };
  });
}

/** `api-keys:list`: the account's keys as the management API lists them (never the keys). */
export async function listApiKeys(ctx: CommandContext, input: { email: string }) {
  return withPostgres(ctx, async (db) => ({
    keys: (await createCredentialRepository({ db }).listApiKeys(await accountOf(db, input.email))).map(presentApiKey),
  }));
}

/** `api-keys:revoke`: only a key of the user's account; its next request gets 401. */
export async function revokeApiKey(ctx: CommandContext, input: { email: string; id: string }) {
  return withPostgres(ctx, async (db) => {
    const revoked = await createCredentialRepository({ db }).revokeApiKey(await accountOf(db, input.email), input.id);
    if (!revoked) throw new UsageError(`the account of ${input.email} has no API key ${input.id}`);
    return presentApiKey(revoked);
  });
}

/** `chatbots:create`: a chatbot of the user's account and the tag to embed (the management API's answer). */
export async function createChatbot(ctx: CommandContext, input: { email: string; name: string; language: string; abTest: boolean }) {
  return withPostgres(ctx, async (db) => {
    const row = await createChatbotRepository({ db }).create(await accountOf(db, input.email), {
      name: input.name, language: input.language, abTestEnabled: input.abTest,
    });
    return {
      chatbot: { id: row.id, name: row.name, language: row.language, status: row.status, abTestEnabled: input.abTest },
      embed: embedFor(ctx.config.ingestPublicUrl, row.id, input.abTest),
    };
  });
}

type AccountCommand = Extract<CommandInput, { command: 'users:create' | 'api-keys:create' | 'api-keys:list' | 'api-keys:revoke' | 'chatbots:create' }>;

export function runAccountCommand(ctx: CommandContext, input: AccountCommand): Promise<unknown> {
  switch (input.command) {
    case 'users:create': return createUser(ctx, input);
    case 'api-keys:create': return createApiKey(ctx, input);
    case 'api-keys:list': return listApiKeys(ctx, input);
    case 'api-keys:revoke': return revokeApiKey(ctx, input);
    case 'chatbots:create': return createChatbot(ctx, input);
  }
}
