/**
 * The benches' one alternation loop. On a shared machine a run's speed moves with whatever else
 * runs, often by more than a change gains; running the sides one after the other, round after
 * round, lets a burst of outside load hit every side alike, and the figures to read are each
 * side's median and the ratio between them (with min and max to show the spread).
 */
import type { Context, Report } from './report.js';
import { median } from './stats.js';

export interface Summary { n: number; min: number; median: number; max: number }

export function summarize(xs: number[]): Summary {
  if (xs.length === 0) return { n: 0, min: NaN, median: NaN, max: NaN };
  return { n: xs.length, min: Math.min(...xs), median: median(xs), max: Math.max(...xs) };
}

export interface AlternateOptions<S extends string, T> {
  /** Every other round runs the sides in reverse order, so that none always runs first (or right after a warm-up). */
  flip?: boolean;
  /** After each round, with that round's samples by side: to compare answers or print progress. */
  onRound?(round: number, samples: Record<S, T>): void | Promise<void>;
}

/**
 * Runs every side once per round, `rounds` times, in the order the sides are written (reversed on
 * odd rounds with `flip`); resolves with each side's samples in round order, so that samples of
 * the same index form a pair (or a round of more sides).
 */
export async function alternate<S extends string, T>(
  rounds: number, sides: Record<S, (round: number) => Promise<T>>, opts: AlternateOptions<S, T> = {},
): Promise<Record<S, T[]>> {
  const names = Object.keys(sides) as S[];
  const out = Object.fromEntries(names.map((n) => [n, [] as T[]])) as Record<S, T[]>;
  for (let round = 0; round < rounds; round++) {
    const order = opts.flip && round % 2 === 1 ? [...names].reverse() : names;
    const samples = {} as Record<S, T>;
    for (const side of order) {
      samples[side] = await sides[side](round);
      out[side].push(samples[side]);
    }
    await opts.onRound?.(round, samples);
  }
  return out;
}

export interface Comparison {
  baseline: Summary;
  candidate: Summary;
  /** The candidate's median over the baseline's. */
  ratio: number;
  /** The median of the per-pair ratios (candidate ÷ baseline of the same round): steadier when the machine drifts during the run. */
  pairRatio: number;
  /** Pairs in which the candidate's sample was the lower one. */
  candidateLower: number;
  pairs: number;
}

/** Baseline and candidate samples of the same rounds, compared. */
export function compare(baseline: number[], candidate: number[]): Comparison {
  const pairs = Math.min(baseline.length, candidate.length);
  const ratios = Array.from({ length: pairs }, (_, i) => candidate[i] / baseline[i]);
  const b = summarize(baseline);
  const c = summarize(candidate);
  return {
    baseline: b, candidate: c, ratio: c.median / b.median, pairRatio: pairs ? median(ratios) : NaN,
    candidateLower: ratios.filter((r) => r < 1).length, pairs,
  };
}

/**
 * A comparison as figures: the figure of each side (its median; min, max and n beside it), then
 * `<figure> ratio`, the candidate's median over the baseline's, with the per-pair figures beside it.
 */
export function reportComparison(
  report: Report, figure: string, unit: string, cmp: Comparison,
  sides: { baseline: string; candidate: string }, context: Context = {},
): void {
  for (const [side, s] of [[sides.baseline, cmp.baseline], [sides.candidate, cmp.candidate]] as const) {
    report.figure(figure, s.median, unit, { ...context, side, min: s.min, max: s.max, n: s.n });
  }
  report.figure(`${figure} ratio`, cmp.ratio, '×', {
    ...context, of: `${sides.candidate} ÷ ${sides.baseline}`, pairRatio: Number(cmp.pairRatio.toFixed(4)),
    candidateLower: cmp.candidateLower, pairs: cmp.pairs,
  });
}
