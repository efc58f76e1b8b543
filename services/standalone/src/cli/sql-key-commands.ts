import { createSqlKeyRepository, presentSqlKey as present } from '@chatlytics/dashboard';
import { withPostgres } from './account-commands.js';
import { UsageError } from './args.js';
import type { CommandContext } from './context.js';
import type { CommandInput } from './spec.js';

/** The data team's named SQL keys (PostgreSQL only, like the account commands). */

/** `sql-keys:create`: the key is printed here once; only its digest is stored. */
export function createSqlKey(ctx: CommandContext, input: { name: string; expiresAt?: Date; queriesPerHour?: number; readRowsPerHour?: number }) {
  return withPostgres(ctx, async (db) => {
    const created = await createSqlKeyRepository({ db }).create(input);
    if (!created) throw new UsageError(`an active SQL key is already named ${input.name}`);
    return { ...present(created), key: created.key };
  });
}

export function listSqlKeys(ctx: CommandContext) {
  return withPostgres(ctx, async (db) => ({ keys: (await createSqlKeyRepository({ db }).list()).map(present) }));
}

export function revokeSqlKey(ctx: CommandContext, key: string) {
  return withPostgres(ctx, async (db) => {
    const revoked = await createSqlKeyRepository({ db }).revoke(key);
    if (!revoked) throw new UsageError(`no active SQL key ${key}`);
    return present(revoked);
  });
}

type SqlKeyCommand = Extract<CommandInput, { command: 'sql-keys:create' | 'sql-keys:list' | 'sql-keys:revoke' }>;

export async function runSqlKeyCommand(ctx: CommandContext, input: SqlKeyCommand): Promise<unknown> {
  if (input.command === 'sql-keys:create') return createSqlKey(ctx, input);
  return input.command === 'sql-keys:list' ? listSqlKeys(ctx) : revokeSqlKey(ctx, input.key);
}
