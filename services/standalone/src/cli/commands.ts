import type { CommandContext } from './context.js';
import type { CommandInput } from './spec.js';

export type { CommandContext } from './context.js';

/**
 * Runs a command whose arguments spec.ts has already checked; the result is printed as JSON.
 * Each group is imported on demand: the account commands need neither ClickHouse nor the
 * consumer, whose modules alone take seconds to load.
 */
export async function runCommand(input: CommandInput, ctx: CommandContext): Promise<unknown> {
  switch (input.command) {
    case 'users:create':
      return (await import('./account-commands.js')).createUser(ctx, input);
    case 'api-keys:create':
      return (await import('./account-commands.js')).createApiKey(ctx, input);
    case 'api-keys:list':
      return (await import('./account-commands.js')).listApiKeys(ctx, input);
    case 'api-keys:revoke':
      return (await import('./account-commands.js')).revokeApiKey(ctx, input);
    case 'chatbots:create':
      return (await import('./account-commands.js')).createChatbot(ctx, input);
    case 'sql-keys:create':
      return (await import('./sql-key-commands.js')).createSqlKey(ctx, input);
    case 'sql-keys:list':
      return (await import('./sql-key-commands.js')).listSqlKeys(ctx);
    case 'sql-keys:revoke':
      return (await import('./sql-key-commands.js')).revokeSqlKey(ctx, input.key);
    case 'migrate':
      return (await import('./data-commands.js')).migrate(ctx);
    case 'import':
      return (await import('./data-commands.js')).importFile(ctx, input.json);
    case 'demo':
      return (await import('./data-commands.js')).loadDemo(ctx);
    case 'replay':
      return (await import('./data-commands.js')).replay(ctx, input.argv);
  }
}
