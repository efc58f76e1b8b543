/**
 * Significance of an A/B conversion test, beyond the required fields (documented in services/dashboard/docs/statistics.md).
 * Pure functions; the numbers are checked against textbook values in the unit tests.
 */

/** Two-sided 95 %: Φ⁻¹(0.975). */
const Z_95 = 1.959963984540054;
/** A sample-ratio mismatch is flagged below this p-value: strict, because it is checked on every load. */
export const SRM_ALPHA = 0.001;

/**
 * Complementary error function (Numerical Recipes `erfcc`, Chebyshev fit): relative error
 * below 1.2e-7 everywhere, plenty for p-values compared with 0.05 or 0.001.
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
    t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? r : 2 - r;
}

/** P(|Z| ≥ |z|) for a standard normal Z. */
export function twoSidedNormalP(z: number): number {
  return Math.min(1, erfc(Math.abs(z) / Math.SQRT2));
}

/**
 * Wilson score interval for successes / trials, as fractions in [0, 1]. Chosen over the
 * normal (Wald) interval because it stays inside [0, 1] and keeps its coverage for small
 * groups and rates near 0 %, which is where new A/B tests live. No trials: [0, 0], following
 * the documented zero-denominator rule.
 */
export function wilsonInterval(successes: number, trials: number, z = Z_95): { lower: number; upper: number } {
  if (trials <= 0) return { lower: 0, upper: 0 };
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return { lower: Math.max(0, centre - half), upper: Math.min(1, centre + half) };
}

/**
 * Two-sided p-value of the difference between two conversion rates: two-proportion z-test
 * with the pooled proportion under H0 (both groups convert alike). When the test is
 * undefined (an empty group, or a pooled rate of exactly 0 or 1: no variance), there is no
 * evidence of a difference and the p-value is 1.
 */
export function twoProportionPValue(x1: number, n1: number, x2: number, n2: number): number {
  if (n1 <= 0 || n2 <= 0) return 1;
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (se === 0) return 1;
  return twoSidedNormalP((x1 / n1 - x2 / n2) / se);
}

/**
 * Sample-ratio mismatch: chi-square goodness of fit of the two group sizes against the
 * intended split, `testShare` of the visitors in `test` (50/50 for the A/B test; the holdout's
 * percentage for the lift). 1 degree of freedom, so P(χ² ≥ x) = erfc(√(x/2)). A mismatch means
 * the assignment or the tracking is broken and the comparison should not be trusted.
 */
export function sampleRatioMismatch(control: number, test: number, testShare = 0.5): { pValue: number; mismatch: boolean } {
  const total = control + test;
  if (total <= 0 || !(testShare > 0 && testShare < 1)) return { pValue: 1, mismatch: false };
  const expectedTest = total * testShare;
  const expectedControl = total - expectedTest;
  const chi2 = (control - expectedControl) ** 2 / expectedControl + (test - expectedTest) ** 2 / expectedTest;
  const pValue = Math.min(1, erfc(Math.sqrt(chi2 / 2)));
  return { pValue, mismatch: pValue < SRM_ALPHA };
}
