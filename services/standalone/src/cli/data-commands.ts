import path from 'node:path';
import { printMigrations, rebuildRollups, runMigrations } from '@chatlytics/clickhouse';
import { parseFixture } from '@chatlytics/dashboard';
import { runReplayCommand } from '@chatlytics/consumer';
import { openEngines, type Engines } from '../engines.js';
import { UsageError } from './args.js';
import { importIntoEngines } from './import-into-engines.js';
import { buildDemoFixture } from './demo-fixture.js';
import type { CommandContext } from './context.js';
import type { CommandInput } from './spec.js';

/** Every engine in this process's hands: nothing else can write while a command runs without a server. */
const isEmbedded = (ctx: CommandContext) => !ctx.config.kafka.brokers && !ctx.config.clickhouse.url;

export async function withEngines<T>(ctx: CommandContext, opts: { bus?: boolean; migrate?: boolean }, fn: (e: Engines) => Promise<T>): Promise<T> {
  if (ctx.stores) {
    // The running server's bus is its consumer's to read: a replay, which reads it too, is
    // refused before it gets here (src/cli.ts); publishing to it (import) is what the server's
    // own tracking does.
    return fn({ ...ctx.stores, close: async () => undefined });
  }
  const engines = await openEngines(ctx.config, ctx.log, undefined, { migrate: opts.migrate ?? true, bus: opts.bus ?? false });
  try {
    return await fn(engines);
  } finally {
    await engines.close();
  }
}

/** `migrate`: both stores' migrations, run here rather than by openEngines so that what was applied can be reported. */
export async function migrate(ctx: CommandContext, opts: { backfill: boolean; print?: boolean; cluster?: string } = { backfill: false }) {
  // src/cli.ts prints before any store opens; a running server asked the same touches nothing either.
  if (opts.print) return { sql: printMigrations({ cluster: opts.cluster ?? ctx.config.clickhouse.cluster, database: ctx.config.clickhouse.database }) };
  return withEngines(ctx, { migrate: false }, async ({ postgres, clickhouse }) => {
    // drizzle's migrator reports nothing; PostgreSQL is simply up to date afterwards.
    await postgres.migrate();
    // --backfill: the whole-table mutations a start-up refuses to run on tables holding rows.
    const ch = await runMigrations(clickhouse, { cluster: ctx.config.clickhouse.cluster, backfill: opts.backfill });
    // After a backfill the rows stored before the aggregates existed are aggregated too.
    const rebuilt = opts.backfill ? await rebuildRollups(clickhouse) : undefined;
    return { postgres: 'up to date', clickhouse: { applied: ch.applied, alreadyApplied: ch.alreadyApplied, rebuilt } };
  });
}

/** `import`: the fixture (see the fixture format in services/standalone/README.md) upserted into PostgreSQL, its events backfilled into ClickHouse. */
export async function importFile(ctx: CommandContext, fixtureJson: unknown) {
  // Validated before the engines open: a broken file costs no start-up.
  const fixture = parseFixture(fixtureJson);
  return withEngines(ctx, { bus: true }, (engines) => importIntoEngines(engines, fixture, {
    // The dashboard reads raw contents from the same place (its app.ts default).
    storageDir: path.join(ctx.config.dataDir, 'storage'),
    config: ctx.config,
    log: ctx.log,
    // The running server's consumer stores what the import publishes; otherwise the import's own.
    consumerRunning: ctx.stores !== undefined,
  }));
}

/** `demo`: the demo account (demo-fixture.ts) through the same import. */
export async function loadDemo(ctx: CommandContext) {
  const summary = await importFile(ctx, buildDemoFixture({ now: new Date() }));
  return { login: { email: 'demo@example.com', password: 'demo-password' }, ...summary };
}

/** `replay`: the consumer's replay over the configured bus (its own argument parsing). */
export function replay(ctx: CommandContext, argv: string[]) {
  return withEngines(ctx, { bus: true }, ({ bus, clickhouse }) => runReplayCommand(argv, { bus, clickhouse, log: ctx.log }));
}

/** `rollups:rebuild`: the statistics' rollups computed again from `events` (clickhouse/README.md, "Rebuilding"). */
export function rollupsRebuild(ctx: CommandContext) {
  return withEngines(ctx, {}, async ({ clickhouse }) => ({ rebuilt: await rebuildRollups(clickhouse) }));
}

type DataCommand = Extract<CommandInput, { command: 'migrate' | 'import' | 'demo' | 'replay' | 'rollups:rebuild' | 'verify' }>;

export async function runDataCommand(ctx: CommandContext, input: DataCommand): Promise<unknown> {
  switch (input.command) {
    case 'migrate': return migrate(ctx, input);
    case 'import': return importFile(ctx, input.json);
    case 'demo': return loadDemo(ctx);
    case 'replay': return replay(ctx, input.argv);
    case 'rollups:rebuild': return rollupsRebuild(ctx);
    case 'verify': return withEngines(ctx, {}, ({ clickhouse }) => (
      import('./verify-command.js').then(({ verify }) => verify(clickhouse, input, { serverRunning: ctx.stores !== undefined, embedded: isEmbedded(ctx) }))));
  }
}
