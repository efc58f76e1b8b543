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
  | { command: 'migrate'; print: boolean; cluster?: string; backfill: boolean }
  | { command: 'import'; file: string; json: unknown }
  | { command: 'import-orders'; file: string; chatbot: string; lines: string[] }
  | { command: 'users:create'; email: string; password: string; account?: string }
  | { command: 'api-keys:create'; email: string; name?: string; scope: 'read' | 'manage' }
  | { command: 'api-keys:list'; email: string }
  | { command: 'api-keys:revoke'; email: string; id: string }
  | { command: 'chatbots:create'; email: string; name: string; language: string; abTest: boolean }
  | { command: 'sql-keys:create'; name: string; expiresAt?: Date; queriesPerHour?: number; readRowsPerHour?: number }
  | { command: 'sql-keys:list' }
  | { command: 'sql-keys:revoke'; key: string }
  | { command: 'demo' }
  | { command: 'rollups:rebuild' }
  | { command: 'verify'; chatbot?: string; from?: string; to?: string; repair: boolean }
  | { command: 'replay'; argv: string[] }
  | { command: 'digest:send'; email: string };

export type CommandName = CommandInput['command'];

export const USAGE: Record<CommandName, string> = {
  migrate: 'migrate [--backfill] | migrate --print [--cluster NAME]',
  import: 'import <file.json>',
  'import-orders': 'import-orders <file.jsonl> --chatbot ID',
  'users:create': 'users:create --email E --password P [--account NAME]',
  'api-keys:create': 'api-keys:create --email E [--name N] [--scope read|manage]',
  'api-keys:list': 'api-keys:list --email E',
  'api-keys:revoke': 'api-keys:revoke --email E --id UUID',
  'chatbots:create': 'chatbots:create --email E --name N [--language en] [--ab-test]',
  'sql-keys:create': 'sql-keys:create --name N [--expires ISO-8601] [--queries-per-hour N] [--read-rows-per-hour N]',
  'sql-keys:list': 'sql-keys:list',
  'sql-keys:revoke': 'sql-keys:revoke --name N | --id UUID',
  demo: 'demo',
  'rollups:rebuild': 'rollups:rebuild',
  verify: 'verify [--chatbot ID] [--from YYYY-MM-DD --to YYYY-MM-DD] [--repair]',
  replay: 'replay --from <ISO-8601> [--stream events|dead-letter]',
  'digest:send': 'digest:send --email E',
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
      return migrateArgs(args);
    case 'demo':
    case 'rollups:rebuild':
    case 'sql-keys:list':
      return { command: name };
    case 'sql-keys:create':
      return sqlKeyCreate(args);
    case 'sql-keys:revoke': {
      const key = args.options.id ?? args.options.name;
      if (!key || key === 'true') throw new UsageError(`--name or --id is required (usage: ${USAGE[name]})`);
      return { command: name, key };
    }
    case 'import': {
      const file = args.positionals[0];
      if (!file) throw new UsageError(`import needs a file (usage: ${USAGE.import})`);
      try {
        return { command: name, file, json: JSON.parse(fs.readFileSync(path.resolve(file), 'utf8')) };
      } catch (err) {
        throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
      }
    }
    case 'import-orders': {
      // One order per line, the body of POST /api/orders; checked line by line by the command.
      const file = args.positionals[0];
      if (!file) throw new UsageError(`import-orders needs a file (usage: ${USAGE['import-orders']})`);
      const chatbot = required(args, 'chatbot', USAGE['import-orders']);
      if (!UUID.test(chatbot)) throw new UsageError(`--chatbot ${JSON.stringify(chatbot)} is not a chatbot id (a UUID)`);
      try {
        return { command: name, file, chatbot: chatbot.toLowerCase(), lines: fs.readFileSync(path.resolve(file), 'utf8').split('\n') };
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
    case 'api-keys:create': {
      // A new key reads unless asked for more (the dashboard's rule for keys).
      const scope = args.options.scope ?? 'read';
      if (scope !== 'read' && scope !== 'manage') throw new UsageError(`--scope must be read or manage (got ${JSON.stringify(scope)})`);
      return { command: name, email: email(required(args, 'email', USAGE[name])), name: args.options.name, scope };
    }
    case 'api-keys:list':
      return { command: name, email: email(required(args, 'email', USAGE[name])) };
    case 'api-keys:revoke': {
      const id = required(args, 'id', USAGE[name]);
      if (!UUID.test(id)) throw new UsageError(`--id ${JSON.stringify(id)} is not a UUID`);
      return { command: name, email: email(required(args, 'email', USAGE[name])), id };
    }
    case 'chatbots:create':
      return chatbotCreate(args);
    case 'digest:send':
      return { command: name, email: email(required(args, 'email', USAGE[name])) };
    case 'verify':
      return verifyArgs(args);
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

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `--from`/`--to` are UTC days, `--to` included. */
function verifyArgs(args: ReturnType<typeof parseArgs>): CommandInput {
  const { chatbot, from, to, repair } = args.options;
  for (const [flag, day] of [['from', from], ['to', to]] as const) {
    if (day !== undefined && (!DAY.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`)))) throw new UsageError(`--${flag} must be a day, YYYY-MM-DD (usage: ${USAGE.verify})`);
  }
  if (chatbot === 'true') throw new UsageError(`--chatbot needs a chatbot id (usage: ${USAGE.verify})`);
  return { command: 'verify', chatbot, from, to, repair: repair === 'true' };
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `--print` renders without a store, for CLICKHOUSE_CLUSTER's cluster or `--cluster NAME`; `--backfill` runs whole-table mutations. */
function migrateArgs(args: ReturnType<typeof parseArgs>): CommandInput {
  const print = args.options.print === 'true';
  const cluster = args.options.cluster;
  if (cluster !== undefined && (!print || !IDENTIFIER.test(cluster))) {
    throw new UsageError(print ? `--cluster ${JSON.stringify(cluster)} is not a cluster name` : `--cluster goes with --print (a running cluster follows CLICKHOUSE_CLUSTER); usage: ${USAGE.migrate}`);
  }
  const backfill = args.options.backfill === 'true';
  if (print && backfill) throw new UsageError(`--print runs nothing, --backfill runs mutations: one or the other (usage: ${USAGE.migrate})`);
  return { command: 'migrate', print, cluster, backfill };
}

// The same rule as the management API's name schema: names appear in the query log.
const SQL_KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

function positiveInt(args: ReturnType<typeof parseArgs>, name: string): number | undefined {
  const v = args.options[name];
  if (v === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(v)) throw new UsageError(`--${name} must be a positive integer`);
  return Number(v);
}

function sqlKeyCreate(args: ReturnType<typeof parseArgs>): CommandInput {
  const name = required(args, 'name', USAGE['sql-keys:create']);
  if (!SQL_KEY_NAME.test(name)) throw new UsageError('--name: letters, digits, _ . @ - (at most 64)');
  const expires = args.options.expires;
  const expiresAt = expires === undefined ? undefined : new Date(expires);
  if (expiresAt && (Number.isNaN(expiresAt.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(expires!))) throw new UsageError(`--expires ${JSON.stringify(expires)} is not an ISO-8601 date`);
  if (expiresAt && expiresAt.getTime() <= Date.now()) throw new UsageError('--expires must be in the future');
  return { command: 'sql-keys:create', name, expiresAt, queriesPerHour: positiveInt(args, 'queries-per-hour'), readRowsPerHour: positiveInt(args, 'read-rows-per-hour') };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// The management API's rules (services/dashboard/src/chatbots/routes.ts).
const LANGUAGE = /^[a-z]{2}(-[A-Z]{2})?$/;

function chatbotCreate(args: ReturnType<typeof parseArgs>): CommandInput {
  const usage = USAGE['chatbots:create'];
  const name = required(args, 'name', usage).trim();
  if (!name || name.length > 100) throw new UsageError('--name: 1 to 100 characters');
  const language = args.options.language ?? 'en';
  if (!LANGUAGE.test(language)) throw new UsageError(`--language ${JSON.stringify(language)}: an ISO 639-1 code such as en, de or pt-BR`);
  const ab = args.options['ab-test'];
  if (ab !== undefined && ab !== 'true' && ab !== 'false') throw new UsageError('--ab-test takes no value (or true/false)');
  return { command: 'chatbots:create', email: email(required(args, 'email', usage)), name, language, abTest: ab === 'true' };
}
