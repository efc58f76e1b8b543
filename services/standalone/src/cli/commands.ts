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
    case 'api-keys:create':
    case 'api-keys:list':
    case 'api-keys:revoke':
    case 'chatbots:create':
      return (await import('./account-commands.js')).runAccountCommand(ctx, input);
    case 'sql-keys:create':
    case 'sql-keys:list':
    case 'sql-keys:revoke':
      return (await import('./sql-key-commands.js')).runSqlKeyCommand(ctx, input);
    case 'digest:send':
      return (await import('./digest-commands.js')).sendDigest(ctx, input.email);
    case 'import-orders':
      return (await import('./import-orders.js')).importOrders(ctx, input);
    default:
      return (await import('./data-commands.js')).runDataCommand(ctx, input);
  }
}
