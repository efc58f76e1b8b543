/**
 * The benches' one entry point: `npm run bench -- <name> [options]` (`--help` after a name lists
 * its options; no name lists the benches). Every run reports the machine's speed first, then the
 * bench's figures, one JSON line each on stdout, with its tables on stderr (bench/README.md).
 */
import type { Bench } from './lib/bench.js';
import { helpText, parseOptions, retiredEnv, UsageError } from './lib/args.js';
import { reportMachine } from './lib/machine.js';
import { createReport } from './lib/report.js';

// Any bench's options: run() is only ever called with what parseOptions made of its own.
type Module = Promise<{ default: Bench<any> }>;

/** Every bench by name (bench/README.md has the table). */
export const BENCHES: Record<string, () => Module> = {
  bus: () => import('./bus.js'),
  ingest: () => import('./ingest/index.js'),
  'ingest-batch': () => import('./ingest/batch.js'),
  'ingest-orders': () => import('./ingest/orders.js'),
  'cpu-ab': () => import('./ingest/cpu-ab.js'),
  pipeline: () => import('./pipeline/embedded.js'),
  'pipeline-kafka': () => import('./pipeline/kafka.js'),
  views: () => import('./views/index.js'),
  stats: () => import('./stats/index.js'),
  'stats-ab': () => import('./stats/ab.js'),
  freshness: () => import('./freshness.js'),
  dashboard: () => import('./dashboard/index.js'),
  'app-pages': () => import('./dashboard/app-pages.js'),
  lcp: () => import('./dashboard/lcp.js'),
  'sql-sandbox': () => import('./sql-sandbox.js'),
  'sql-memory': () => import('./sql-memory.js'),
  'slow-clients': () => import('./slow-clients/index.js'),
  'privacy-erase': () => import('./privacy-erase.js'),
  backfill: () => import('./backfill/index.js'),
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || !(name in BENCHES)) {
    if (name && !name.startsWith('-')) process.stderr.write(`no bench named ${name}\n`);
    process.stderr.write(`npm run bench -- <name> [options]; --help after a name lists its options.\n\n${Object.keys(BENCHES).join('\n')}\n`);
    return name && !name.startsWith('-') ? 2 : 0;
  }
  const bench = (await BENCHES[name]()).default;
  const { values, help } = parseOptions(bench.options, rest);
  if (help) {
    process.stdout.write(`${helpText(name, bench.summary, bench.options)}\n`);
    return 0;
  }
  const retired = retiredEnv(process.env);
  if (retired.length > 0) throw new UsageError(retired.join('\n'));
  const report = createReport(name);
  reportMachine(report);
  await bench.run(values, report);
  return typeof process.exitCode === 'number' ? process.exitCode : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n(npm run bench -- ${process.argv[2]} --help)\n`);
      process.exit(2);
    }
    console.error(err);
    process.exit(1);
  },
);
