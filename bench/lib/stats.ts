/** The middle value (the upper one of an even count): the benches' robust summary of repeated samples. */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The sample whose `key` is the median (the upper one of an even count): a whole run kept, not a mix of runs. */
export const medianBy = <T>(xs: T[], key: (x: T) => number): T => [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)];

/** The q-quantile (0–1) of an ascending list: the value at ⌊n·q⌋, the last one at most; undefined when empty. */
export const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];

/** The nearest-rank percentile `p` (0–100) of the values: the statistics benches' p50 / p95. */
export function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
