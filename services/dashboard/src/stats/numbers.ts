/**
 * Per the statistics definitions in services/dashboard/docs/statistics.md: "every float is rounded to 2 decimals; every ratio with a zero denominator is 0".
 * Rounding is half away from zero on the decimal value: x × 100 is first cut to 15 significant
 * digits, which removes binary noise (1.005 × 100 = 100.49999999999999 → 100.5 → 1.01) and
 * makes sums added in a different order (ClickHouse vs. TypeScript) round identically.
 */
export function round2(x: number): number {
  if (!Number.isFinite(x)) return 0;
  const scaled = Number((Math.abs(x) * 100).toPrecision(15));
  const rounded = Math.round(scaled) / 100;
  // `|| 0` turns -0 into 0: JSON would print both as 0, but tests compare with Object.is.
  return (x < 0 ? -rounded : rounded) || 0;
}

/** numerator / denominator, 0 when the denominator is 0, rounded. */
export function ratio(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : round2(numerator / denominator);
}

/** numerator / denominator × 100, 0 when the denominator is 0, rounded. */
export function percent(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : round2((numerator / denominator) * 100);
}

/** ClickHouse JSON output quotes 64-bit integers; every count goes through here. */
export function toInt(value: unknown): number {
  const n = Number(value ?? 0);
  if (!Number.isFinite(n)) throw new TypeError(`not a number: ${String(value)}`);
  return n;
}
