/**
 * What a bench prints. Every figure is one JSON line on stdout,
 * `{"bench":"bus","figure":"publish","value":49568,"unit":"ev/s", …context}`, so that
 * `npm run bench -- bus > figures.jsonl` or `| jq` keeps the figures alone; the human table,
 * progress and verdicts go to stderr, which a terminal shows beside them. Context names what the
 * figure is of (a side of a pair, a scenario, a statistic, a connection count) and never replaces
 * the four fixed keys. The benches' own log lines go to stderr too (benchLogger).
 */

import { pino, type Logger } from 'pino';
import { loggerOptions } from '@chatlytics/core';

export type ContextValue = string | number | boolean | null | ContextValue[] | { [key: string]: ContextValue };
export type Context = Record<string, ContextValue>;

const FIXED = ['bench', 'figure', 'value', 'unit'];

/** A value as printed: integers as they are, others to 6 significant digits; NaN and ±Infinity as null. */
const printed = (value: number | null): number | null =>
  value === null || !Number.isFinite(value) ? null : Number.isInteger(value) ? value : Number(value.toPrecision(6));

/** One figure's JSON line (without the newline); numbers of the context rounded as the value is. */
export function figureLine(bench: string, figure: string, value: number | null, unit: string, context: Context = {}): string {
  const clash = FIXED.filter((k) => k in context);
  if (clash.length > 0) throw new Error(`figure ${figure}: context may not set ${clash.join(', ')}`);
  const rounded = Object.fromEntries(Object.entries(context).map(([k, v]) => [k, typeof v === 'number' ? printed(v) : v]));
  return JSON.stringify({ bench, figure, value: printed(value), unit, ...rounded });
}

export interface Report {
  readonly bench: string;
  /** One figure, as a JSON line on stdout. */
  figure(figure: string, value: number | null, unit: string, context?: Context): void;
  /** Several figures of the same context: `[figure, value, unit]` each. */
  figures(context: Context, figures: [string, number | null, string][]): void;
  /** Lines for people (tables, progress, verdicts), on stderr. */
  text(...lines: string[]): void;
}

export function createReport(
  bench: string,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  err: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Report {
  return {
    bench,
    figure: (figure, value, unit, context) => out(figureLine(bench, figure, value, unit, context)),
    figures: (context, figures) => { for (const [figure, value, unit] of figures) out(figureLine(bench, figure, value, unit, context)); },
    text: (...lines) => { for (const line of lines) err(line); },
  };
}

/** The product's logger (createLogger's options) writing to stderr, so that stdout carries the figures alone. */
export const benchLogger = (level: string, name?: string): Logger => pino(loggerOptions(level, name), pino.destination(2));
