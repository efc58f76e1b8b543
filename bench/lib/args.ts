/**
 * The benches' one option parser: node's util.parseArgs over a typed list of options, each with
 * its default and one line of help (`--help` prints them). Values come back typed and checked
 * (a number is a finite number, a choice one of its values), so a bench reads `o.events`, never
 * argv. Benches take flags only: an environment variable is the product's configuration
 * (KAFKA_BROKERS, DATABASE_URL, CLICKHOUSE_EMBEDDED_CONNECTIONS), not a bench's option, and the
 * BENCH_* variables the benches once read stop the run with the flag that replaced them.
 */
import { parseArgs } from 'node:util';

interface Common { help: string; /** An older name of the same flag, still accepted. */ alias?: string }
export interface NumberOption<D extends number | undefined = number | undefined> extends Common {
  type: 'number'; default: D; /** The least value accepted. */ min?: number; integer?: boolean;
}
export interface StringOption<D extends string | undefined = string | undefined> extends Common { type: 'string'; default: D }
export interface ChoiceOption<C extends string = string> extends Common { type: 'choice'; choices: readonly C[]; default: C }
export interface FlagOption extends Common { type: 'boolean' }
export interface ListOption<T extends string | number = string | number> extends Common { type: 'list'; of: 'string' | 'number'; default: T[] }
export type Option = NumberOption | StringOption | ChoiceOption | FlagOption | ListOption;
export type Options = Record<string, Option>;

type ValueOf<O> =
  O extends NumberOption<infer D> ? (undefined extends D ? number | undefined : number) :
  O extends StringOption<infer D> ? (undefined extends D ? string | undefined : string) :
  O extends ChoiceOption<infer C> ? C :
  O extends FlagOption ? boolean :
  O extends ListOption<infer T> ? T[] : never;
/** The parsed values of `O`, by the options' names as written (`'baseline-rows'`). */
export type Values<O extends Options> = { [N in keyof O]: ValueOf<O[N]> };

/** Constructors that keep each option's type for Values. */
export const opt = {
  number: <D extends number | undefined>(dflt: D, help: string, more: { min?: number; integer?: boolean; alias?: string } = {}): NumberOption<D> =>
    ({ type: 'number', default: dflt, help, ...more }),
  string: <D extends string | undefined>(dflt: D, help: string, more: { alias?: string } = {}): StringOption<D> =>
    ({ type: 'string', default: dflt, help, ...more }),
  choice: <C extends string>(choices: readonly C[], dflt: C, help: string): ChoiceOption<C> => ({ type: 'choice', choices, default: dflt, help }),
  flag: (help: string): FlagOption => ({ type: 'boolean', help }),
  /** A comma list: `--scenarios bare,kafka`. */
  list: (dflt: string[], help: string): ListOption<string> => ({ type: 'list', of: 'string', default: dflt, help }),
  /** A comma list of numbers: `--sweep 50,256`. */
  numbers: (dflt: number[], help: string): ListOption<number> => ({ type: 'list', of: 'number', default: dflt, help }),
};

/** A mistake in the command line: the run stops with the message and a pointer to --help. */
export class UsageError extends Error {}

function toNumber(name: string, raw: string, o: NumberOption): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} takes a number, not "${raw}"`);
  if (o.integer && !Number.isInteger(n)) throw new UsageError(`--${name} takes a whole number, not ${raw}`);
  if (o.min !== undefined && n < o.min) throw new UsageError(`--${name} must be at least ${o.min}, not ${raw}`);
  return n;
}

function convert(name: string, raw: string | boolean | undefined, o: Option): unknown {
  if (o.type === 'boolean') return raw === true;
  if (raw === undefined || raw === true || raw === false) return o.default;
  if (o.type === 'number') return toNumber(name, raw, o);
  if (o.type === 'choice') {
    if (!o.choices.includes(raw)) throw new UsageError(`--${name} is one of ${o.choices.join(', ')}, not "${raw}"`);
    return raw;
  }
  if (o.type === 'list') {
    const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
    return o.of === 'number' ? items.map((s) => toNumber(name, s, { type: 'number', default: undefined, help: '' })) : items;
  }
  return raw;
}

/** Parses `argv` (a bench's flags, without its name) against `options`; `help` is true when --help or -h was given. */
export function parseOptions<O extends Options>(options: O, argv: string[]): { values: Values<O>; help: boolean } {
  const config: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, o] of Object.entries(options)) {
    config[name] = { type: o.type === 'boolean' ? 'boolean' : 'string' };
    if (o.alias) config[o.alias] = config[name];
  }
  let parsed: Record<string, string | boolean | undefined>;
  try {
    parsed = parseArgs({ args: argv, options: config, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const values: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(options)) {
    values[name] = convert(name, parsed[name] ?? (o.alias ? parsed[o.alias] : undefined), o);
  }
  return { values: values as Values<O>, help: parsed.help === true };
}

const shown = (o: Option): string => {
  if (o.type === 'boolean') return '';
  if (o.type === 'list') return o.default.join(',');
  return o.default === undefined ? '' : String(o.default);
};

/** The --help text of a bench: its usage line, what it measures, and each option with its default. */
export function helpText(name: string, summary: string, options: Options): string {
  const rows = Object.entries(options).map(([flag, o]) => {
    const value = o.type === 'boolean' ? '' : o.type === 'choice' ? ` ${o.choices.join('|')}` : ' <value>';
    return { left: `  --${flag}${value}${o.alias ? ` (or --${o.alias})` : ''}`, dflt: shown(o), help: o.help };
  });
  const width = Math.max(0, ...rows.map((r) => r.left.length));
  const dfltWidth = Math.max(7, ...rows.map((r) => r.dflt.length));
  return [
    `npm run bench -- ${name}${rows.length ? ' [options]' : ''}`,
    '',
    summary,
    ...(rows.length ? ['', `${'  option'.padEnd(width)}  ${'default'.padEnd(dfltWidth)}  meaning`] : []),
    ...rows.map((r) => `${r.left.padEnd(width)}  ${r.dflt.padEnd(dfltWidth)}  ${r.help}`),
  ].join('\n');
}

/** What replaced each BENCH_* variable the benches used to read. */
export const RETIRED_ENV: Record<string, string> = {
  BENCH_CALLS: '--calls',
  BENCH_CONNECTIONS: '--connections',
  BENCH_CONNECTIONS_BATCH: '--batch-connections',
  BENCH_DIR: '--dir <dir>',
  BENCH_DURATION: '--seconds',
  BENCH_EVENTS: '--events',
  BENCH_FRESHNESS_ROUNDS: '--rounds',
  BENCH_HEAP_POLICY: '--heap-policy off',
  BENCH_INSERT_ROWS: '--insert-rows',
  BENCH_KAFKA_PID: '--kafka-pid',
  BENCH_PAGE_CACHE_MS: '--cache-ms',
  BENCH_PAGE_REQUESTS: '--requests',
  BENCH_PIPELINE_BUS: 'the bench pipeline-kafka (npm run bench -- pipeline-kafka)',
  BENCH_PROFILE: '--cpu-prof-dir <dir>',
  BENCH_ROUNDS: '--rounds',
  BENCH_ROUTES: '--routes',
  BENCH_SCENARIOS: '--scenarios',
  BENCH_SERVER_NODE_FLAGS: '--server-node-flags=<flags>',
  BENCH_SKIP_PG: '--skip-pg',
  BENCH_SWEEP: '--sweep',
  BENCH_VARIANTS: '--variants',
};

/** One line per BENCH_* variable set in `env`: none is read any more, and a run that ignored one would measure something else. */
export function retiredEnv(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env).filter((k) => k.startsWith('BENCH_')).sort()
    .map((k) => `${k} is not read any more: ${RETIRED_ENV[k] ? `use ${RETIRED_ENV[k]}` : 'the benches take flags (--help)'}`);
}
