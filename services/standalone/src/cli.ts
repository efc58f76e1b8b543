import { pino } from 'pino';
import { acquireDataDirLock, DataDirLockedError, type DataDirLock } from '@chatlytics/core';
import { UsageError } from './cli/args.js';
import { isCommandName, parseCommand, usageText, type CommandInput } from './cli/spec.js';

// Entry point of `npm run cli -- <command>` (see the CLI rules in services/standalone/README.md): JSON on stdout, errors on stderr
// with exit code 1. Work is ordered cheapest first — arguments, configuration, the DATA_DIR
// lock, then the engine and service modules (seconds to load) — so mistakes fail fast.
const [name, ...argv] = process.argv.slice(2);

/** A command's result may ask for a failing exit code (`verify` when anything differs). */
function exitCodeOf(result: unknown): number {
  const code = (result as { exitCode?: unknown } | null)?.exitCode;
  return typeof code === 'number' ? code : 0;
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

if (name === '--help' || name === 'help') {
  process.stdout.write(`${usageText()}\n`);
  process.exit(0);
}
if (!name) fail(`a command is required\n${usageText()}`);
if (!isCommandName(name)) fail(`unknown command ${JSON.stringify(name)}\n${usageText()}`);

let input: CommandInput;
try {
  input = parseCommand(name, argv);
} catch (err) {
  fail(err instanceof UsageError ? err.message : String(err));
}

const { loadConfig, loggerOptions } = await import('@chatlytics/core');
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
} catch (err) {
  fail((err as Error).message);
}
// `migrate --print` renders the SQL files and stops: no lock, no store opened, nothing created.
if (input.command === 'migrate' && input.print) {
  const { printMigrations } = await import('@chatlytics/clickhouse/migrations');
  const sql = printMigrations({ cluster: input.cluster ?? config.clickhouse.cluster, database: config.clickhouse.database });
  await new Promise<void>((resolve) => process.stdout.write(sql, () => resolve()));
  process.exit(0);
}

// Quieter than the servers by default: a CLI user wants the result, not start-up chatter.
// Logs go to stderr so that stdout stays one JSON document.
const log = pino(loggerOptions(process.env.LOG_LEVEL ? config.logLevel : 'warn', 'cli'), pino.destination(2));

/** How long a CLI waits for a server that holds the lock to announce its address (it does so just after listening). */
const ANNOUNCE_WAIT_MS = 3000;

// The embedded engines allow one process per DATA_DIR: while `npm start` holds it, the command
// runs in that server (src/admin) instead of opening the stores a second time.
const embedded = !config.databaseUrl || !config.clickhouse.url || !config.kafka.brokers;
let lock: DataDirLock | undefined;
try {
  if (embedded) lock = await acquireDataDirLock(config.dataDir, `cli ${name}`);
} catch (err) {
  if (!(err instanceof DataDirLockedError)) fail(`cannot lock DATA_DIR: ${(err as Error).message}`);
  await runInServer(err.message);
}

async function runInServer(lockMessage: string): Promise<never> {
  const { readAdminEndpoint } = await import('./admin/endpoint-file.js');
  const { REMOTE_REFUSED } = await import('./admin/errors.js');
  // npm start announces itself just after it starts listening: a CLI started in that moment waits for it.
  let endpoint = readAdminEndpoint(config.dataDir);
  for (let waited = 0; !endpoint && waited < ANNOUNCE_WAIT_MS; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    endpoint = readAdminEndpoint(config.dataDir);
  }
  if (!endpoint) fail(`${lockMessage}\n(no running npm start announces itself in ${config.dataDir}: only npm start takes commands while running)`);
  if (REMOTE_REFUSED.has(input.command)) {
    fail(`${input.command} cannot run while npm start (pid ${endpoint.pid}) uses ${config.dataDir}: it re-reads the event bus the server's consumer owns; stop the server first`);
  }
  const { runRemote } = await import('./admin/client.js');
  try {
    const result = await runRemote(endpoint, input.command, argv);
    await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`, () => resolve()));
    process.exit(exitCodeOf(result));
  } catch (err) {
    const { message, refused } = err as { message: string; refused?: boolean };
    fail(refused ? message : `${name} failed in the running server (pid ${endpoint.pid}): ${message}`);
  }
}

const { runCommand } = await import('./cli/commands.js');
try {
  const result = await runCommand(input, { config, log });
  // Exit only once the result is flushed: stdout may be a pipe the reader drains slowly.
  await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`, () => resolve()));
  await lock?.release();
  process.exit(exitCodeOf(result));
} catch (err) {
  await lock?.release();
  if (err instanceof UsageError) fail(err.message);
  // By name, not instanceof: the fixture module is only loaded by the commands that need it.
  if ((err as Error).name === 'FixtureError') fail(['invalid fixture:', ...(err as { problems: string[] }).problems.map((p) => `  ${p}`)].join('\n'));
  // The consumer's replay argument errors are usage errors too (ConsumerError BAD_REPLAY_ARGS, status 400).
  if ((err as { statusCode?: number }).statusCode === 400) fail((err as Error).message);
  log.error({ err }, `${name} failed`);
  fail(`${name} failed: ${(err as Error).message}`);
}
