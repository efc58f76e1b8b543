import fs from 'node:fs';
import path from 'node:path';
import { parseReplayArgs } from '@chatlytics/consumer/replay-args';
import { parseArgs, required, UsageError } from './args.js';

/**
 * The CLI's commands and their arguments, checked before anything heavy loads: this module
 * imports no engine or service code, so a typo fails in the time Node needs to start instead
 * of after PostgreSQL and ClickHouse have been opened.
 */
export type CommandInput =
  | { command: 'migrate' }
  | { command: 'rollups:rebuild' }
  | { command: 'import'; file: string; json: unknown }
  | { command: 'users:create'; email: string; password: string; account?: string }
  | { command: 'api-keys:create'; email: string; name?: string }
  | { command: 'demo' }
  | { command: 'replay'; argv: string[] };

export type CommandName = CommandInput['command'];

export const USAGE: Record<CommandName, string> = {
  migrate: 'migrate',
  'rollups:rebuild': 'rollups:rebuild',
  import: 'import <file.json>',
  'users:create': 'users:create --email E --password P [--account NAME]',
  'api-keys:create': 'api-keys:create --email E [--name N]',
  demo: 'demo',
  replay: 'replay --from <ISO-8601> [--stream events|dead-letter]',
};

export const usageText = () => `usage: npm run cli -- <command>\n${Object.values(USAGE).map((u) => `  ${u}`).join('\n')}`;

export const isCommandName = (name: string): name is CommandName => Object.hasOwn(USAGE, name);

// Deliberately loose: the address is only a login name here; a typo like a missing @ is what it catches.
const EMAIL = /^[^\s@]+@[^\s@]+$/;
// The same floor as the password reset form.
const MIN_PASSWORD = 8;

function email(value: string): string {
  const normalised = value.trim().toLowerCase();
  if (!EMAIL.test(normalised)) throw new UsageError(`--email ${JSON.stringify(value)} is not an e-mail address`);
  return normalised;
}

/** Throws UsageError with a message for stderr. */
export function parseCommand(name: CommandName, argv: string[]): CommandInput {
  const args = parseArgs(argv);
  switch (name) {
    case 'migrate':
    case 'rollups:rebuild':
    case 'demo':
      return { command: name };
    case 'import': {
      const file = args.positionals[0];
      if (!file) throw new UsageError(`import needs a file (usage: ${USAGE.import})`);
      try {
        return { command: name, file, json: JSON.parse(fs.readFileSync(path.resolve(file), 'utf8')) };
      } catch (err) {
        throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
      }
    }
    case 'users:create': {
      const address = email(required(args, 'email', USAGE[name]));
      const password = required(args, 'password', USAGE[name]);
      if (password.length < MIN_PASSWORD) throw new UsageError(`--password must have at least ${MIN_PASSWORD} characters`);
      return { command: name, email: address, password, account: args.options.account };
    }
    case 'api-keys:create':
      return { command: name, email: email(required(args, 'email', USAGE[name])), name: args.options.name };
    case 'replay':
      // The consumer's own check, run before any engine starts so a typo costs no start-up.
      try {
        parseReplayArgs(argv);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      return { command: name, argv };
  }
}
