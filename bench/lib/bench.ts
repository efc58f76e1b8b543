import type { Options, Values } from './args.js';
import type { Report } from './report.js';

/** A bench as bench/run.ts runs it: its options, and what it does with them. */
export interface Bench<O extends Options = Options> {
  /** What it measures, in a sentence or two (the first lines of --help). */
  summary: string;
  options: O;
  run(values: Values<O>, report: Report): Promise<void>;
}

/** Keeps the options' types for `run` (a bench module's default export). */
export const defineBench = <O extends Options>(bench: Bench<O>): Bench<O> => bench;

/** One bench made of others run one after the other (their options together), e.g. bench:ingest's scenarios, then its batch part. */
export function sequence<A extends Options, B extends Options>(summary: string, first: Bench<A>, second: Bench<B>): Bench<A & B> {
  return {
    summary,
    options: { ...first.options, ...second.options },
    async run(values, report) {
      await first.run(values as Values<A>, report);
      await second.run(values as Values<B>, report);
    },
  };
}
