import { randomUUID } from 'node:crypto';
import { createPostgres, type Database } from '@chatlytics/postgres';
import { createAccountRepository, createCredentialRepository, createUserRepository, hashPassword } from '@chatlytics/dashboard';
import { UsageError } from './args.js';
import type { CommandContext } from './context.js';

/** Account commands touch PostgreSQL only: not loading or starting ClickHouse saves seconds per call. */
export async function withPostgres<T>(ctx: CommandContext, fn: (db: Database) => Promise<T>): Promise<T> {
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

/** `api-keys:create`: a key for the user's account, shown once (only its digest is stored). */
export async function createApiKey(ctx: CommandContext, input: { email: string; name?: string }) {
  return withPostgres(ctx, async (db) => {
    const user = await createUserRepository({ db }).findByEmail(input.email);
    if (!user) throw new UsageError(`no user with e-mail ${input.email}`);
    const created = await createCredentialRepository({ db }).createApiKey({ accountId: user.accountId, name: input.name });
    return { key: created.key };
  });
}
