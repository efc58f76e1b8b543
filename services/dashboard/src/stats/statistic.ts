import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Database } from '@chatlytics/postgres';
import type { TObject } from 'typebox';
import type { StatsChatbot } from './conversation-stats-repository.js';
import type { SegmentFilter } from './segment.js';
import type { StatsWindow } from './window.js';

/** Where the statistics are read from. */
export interface StatsSources {
  clickhouse: ClickHouseEngine;
  db: Database;
  /** APP_URL: base of the conversation links (never the Host header). */
  appUrl: string;
}

/** What one computation of a statistic is about. */
export interface StatisticContext<X> {
  chatbot: StatsChatbot;
  window: StatsWindow;
  /** NO_SEGMENT when the answer is not filtered. */
  segment: SegmentFilter;
  /** The statistic's own parameters (`by` of sources, `dimension` of topics). */
  extra: X;
}

/**
 * How the window of a statistic is asked for: `days` (`timeframe` or `from`/`to`, with
 * `compare=previous` when the statistic allows it), `insights` (the insights timeframe text),
 * `live` (the last LIVE_WINDOW_MINUTES minutes, never cached).
 */
export type FrameKind = 'days' | 'insights' | 'live';

/** The parts of the CSV file name a statistic adds: after its name, and after the window. */
export interface CsvNameParts { afterName?: string; afterFrame?: string }

export type Query = Record<string, string | number | undefined>;

/**
 * One statistic (services/dashboard/docs/statistics.md): everything about it the API, the page,
 * the cache and the oracles need. The runner (run.ts) owns the window, the cache, ownership,
 * the previous period and the segment; a module only reads and presents.
 */
export interface Statistic<
  N extends string = string, X extends object = object, Raw = unknown, B extends object = object, K extends readonly string[] = readonly string[], F extends FrameKind = FrameKind,
> {
  /** `GET /api/dashboard/analytics/stats/<name>`; also the cache's and the CSV file's name. */
  readonly name: N;
  /** The OpenAPI summary. */
  readonly summary: string;
  /** clickhouse/queries/<query>.sql; null when PostgreSQL alone answers. */
  readonly query: string | null;
  readonly frame: F;
  /** `compare=previous` adds `previous`, the same body over the period before. */
  readonly compare: boolean;
  /** The query string; segment filters in it make the answer filterable. */
  readonly querystring: TObject;
  /** The 200 body in wire order (Fastify serialises by schema: a field missing here is dropped). */
  readonly response: TObject;
  /** Names of the statistic's own parameters, in the order the plain readers take them (readers.ts). */
  readonly args: K;
  /** The statistic's own parameters from a checked query string, defaults applied. */
  readonly extra: (query: Query) => X;
  read(src: StatsSources, ctx: StatisticContext<X>): Promise<Raw>;
  /** Rates, rounding and field order (the numbers rules of docs/statistics.md). */
  present(raw: Raw, ctx: StatisticContext<X>): B;
  /** What else than the window and parameters makes another answer (purchases: the A/B switch). */
  readonly cacheKey?: (chatbot: StatsChatbot) => string;
  readonly csvName?: (query: Query) => CsvNameParts;
  /**
   * A statistic whose body holds a list of records downloads them as a table (`format=csv`): its
   * columns, then one row per record, flat, in the body's order (csv.ts). Without it the file is
   * one row of the body's scalars. It takes the statistic's body (typed by each module: a
   * parameter of `never` keeps B inferred from `present`).
   */
  readonly csvTable?: (body: never) => CsvTable;
}

/** One record of a tabular CSV: scalar values by column. */
export type CsvRow = Record<string, string | number | boolean | null>;

/** A CSV table: the header's columns in order (also for no record), and the records; a column a record lacks is an empty cell. */
export interface CsvTable { columns: readonly string[]; rows: readonly CsvRow[] }

type Spec<N extends string, X extends object, Raw, B extends object, K extends readonly string[], F extends FrameKind> =
  Omit<Statistic<N, X, Raw, B, K, F>, 'args' | 'extra'> & Partial<Pick<Statistic<N, X, Raw, B, K, F>, 'args' | 'extra'>>;

/**
 * A statistic module's definition: `defineStatistic<Extra>()({...})`; without own parameters
 * `args` and `extra` may be left out.
 */
export const defineStatistic = <X extends object = Record<never, never>>() =>
  <const N extends string, const F extends FrameKind, Raw, B extends object, const K extends readonly string[] = readonly []>(spec: Spec<N, X, Raw, B, K, F>): Statistic<N, X, Raw, B, K, F> =>
    ({ args: [] as unknown as K, extra: () => ({}) as X, ...spec });

// Patterns over every statistic: its parameters are both taken and given, so only `any` matches them all.
export type AnyStatistic = Statistic<string, any, any, object, readonly string[], FrameKind>;
export type BodyOf<S> = S extends Statistic<any, any, any, infer B, any, any> ? B : never;
export type ExtraOf<S> = S extends Statistic<any, infer X, any, any, any, any> ? X : never;
export type ArgsOf<S> = S extends Statistic<any, infer X, any, any, infer K, any> ? { [I in keyof K]: X[K[I] & keyof X] } : never;
