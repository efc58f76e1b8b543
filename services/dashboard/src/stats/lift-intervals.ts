/**
 * The interval methods of the lift statistic (services/dashboard/docs/statistics.md, "lift"):
 * Newcombe's hybrid score interval for a difference of proportions, Welch's t for a difference
 * of means, and the sample size that would detect a difference. Pure functions, checked against
 * published values in the unit tests.
 */
import { wilsonInterval } from './ab-significance.js';

/** Two-sided 95 %: Φ⁻¹(0.975). */
export const Z_95 = 1.959963984540054;
/** 80 % power: Φ⁻¹(0.8). */
export const Z_POWER_80 = 0.8416212335729143;

export interface Difference { value: number; lower: number; upper: number }

/**
 * Newcombe (1998) method 10, the hybrid score interval for p1 − p2 from each proportion's
 * Wilson interval: [d − √((p1 − l1)² + (u2 − p2)²), d + √((u1 − p1)² + (p2 − l2)²)]. Chosen
 * over the Wald interval because it keeps its coverage for rates near 0 % and small groups
 * (a holdout of a few percent is small). An empty group gives [d, d] with d its rate 0.
 */
export function newcombeInterval(x1: number, n1: number, x2: number, n2: number): Difference {
  const p1 = n1 > 0 ? x1 / n1 : 0;
  const p2 = n2 > 0 ? x2 / n2 : 0;
  const a = wilsonInterval(x1, n1);
  const b = wilsonInterval(x2, n2);
  const d = p1 - p2;
  if (n1 <= 0 || n2 <= 0) return { value: d, lower: d, upper: d };
  return {
    value: d,
    lower: d - Math.sqrt((p1 - a.lower) ** 2 + (b.upper - p2) ** 2),
    upper: d + Math.sqrt((a.upper - p1) ** 2 + (p2 - b.lower) ** 2),
  };
}

/** ln Γ(x), Lanczos (g = 7, 9 terms): about 15 digits for x > 0. */
function logGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The regularized incomplete beta I_x(a, b), by its continued fraction (Numerical Recipes betacf). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let f = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let num = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d; d = 1 / (Math.abs(d) < tiny ? tiny : d);
    c = 1 + num / c; c = Math.abs(c) < tiny ? tiny : c;
    f *= d * c;
    num = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d; d = 1 / (Math.abs(d) < tiny ? tiny : d);
    c = 1 + num / c; c = Math.abs(c) < tiny ? tiny : c;
    const step = d * c;
    f *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return (front * f) / a;
}

/** P(|T| ≥ |t|) for Student's t with df degrees of freedom (df may be fractional, as Welch's). */
export function twoSidedTP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  return Math.min(1, incompleteBeta(df / (df + t * t), df / 2, 0.5));
}

/** The t with P(|T| ≥ t) = 0.05 (the two-sided 95 % quantile), by bisection on twoSidedTP. */
export function tQuantile95(df: number): number {
  if (!(df > 0)) return Number.POSITIVE_INFINITY;
  let lo = 0;
  let hi = 1;
  while (twoSidedTP(hi, df) > 0.05) hi *= 2;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (twoSidedTP(mid, df) > 0.05) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

/** An arm's per-visitor sums: n visitors, Σx and Σx² over them (zeros included). */
export interface Sums { n: number; sum: number; sumSquares: number }

/**
 * The sample variance from the sums, (Σx² − (Σx)²/n) / (n − 1): the SQL returns sums, not the
 * values. The subtraction loses few of a double's 16 digits here: most visitors buy nothing, so
 * (Σx)²/n is about the conversion rate times Σx². Clamped at 0 against
 * rounding below it.
 */
export function sampleVariance({ n, sum, sumSquares }: Sums): number {
  return n > 1 ? Math.max(0, (sumSquares - (sum * sum) / n) / (n - 1)) : 0;
}

/**
 * Welch's t for mean1 − mean2 with unequal variances (Welch–Satterthwaite degrees of freedom):
 * the difference, its 95 % interval and the two-sided p-value. Fewer than 2 in a group, or no
 * variance at all, leaves nothing to test: the interval is [d, d] and p = 1 when d = 0, else 0.
 */
export function welchInterval(a: Sums, b: Sums): Difference & { pValue: number } {
  const d = (a.n > 0 ? a.sum / a.n : 0) - (b.n > 0 ? b.sum / b.n : 0);
  const va = a.n > 1 ? sampleVariance(a) / a.n : 0;
  const vb = b.n > 1 ? sampleVariance(b) / b.n : 0;
  const se2 = va + vb;
  if (a.n < 2 || b.n < 2 || se2 === 0) return { value: d, lower: d, upper: d, pValue: d === 0 ? 1 : 0 };
  const se = Math.sqrt(se2);
  const df = (se2 * se2) / ((va * va) / (a.n - 1) + (vb * vb) / (b.n - 1));
  const half = tQuantile95(df) * se;
  return { value: d, lower: d - half, upper: d + half, pValue: twoSidedTP(d / se, df) };
}

/**
 * How many visitors in all, split `holdoutShare` / 1 − holdoutShare, a two-sided test at 5 %
 * needs to detect `delta` between the arms' means with 80 % power, given each arm's variance:
 * N = (z₀.₉₇₅ + z₀.₈)² (σₑ² / (1 − h) + σₕ² / h) / δ². Infinity when δ is 0 or the share is 0.
 */
export function visitorsForPower(delta: number, varianceExposed: number, varianceHoldout: number, holdoutShare: number): number {
  if (delta === 0 || !(holdoutShare > 0 && holdoutShare < 1)) return Number.POSITIVE_INFINITY;
  return ((Z_95 + Z_POWER_80) ** 2 * (varianceExposed / (1 - holdoutShare) + varianceHoldout / holdoutShare)) / (delta * delta);
}

