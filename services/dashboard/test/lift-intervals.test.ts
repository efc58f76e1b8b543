import t from 'tap';
import { sampleRatioMismatch } from '../src/stats/ab-significance.js';
import { newcombeInterval, sampleVariance, tQuantile95, twoSidedTP, visitorsForPower, welchInterval } from '../src/stats/lift-intervals.js';

// What this proves: the lift statistic's interval methods give the published values.
const close = (t: { ok(v: boolean, m: string): unknown }, actual: number, expected: number, tolerance: number, what: string) =>
  t.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} ≈ ${expected}`);

t.test("Newcombe's hybrid score interval (method 10) reproduces Newcombe 1998, Table II", async (t) => {
  // (x1, n1, x2, n2) → 95 % limits for p1 − p2, as printed (4 decimals).
  const cases: [number, number, number, number, number, number][] = [
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.8090],
    [5, 56, 0, 29, -0.0381, 0.1926],
    [0, 10, 0, 20, -0.1611, 0.2775],
    [0, 10, 0, 10, -0.2775, 0.2775],
  ];
  for (const [x1, n1, x2, n2, lower, upper] of cases) {
    const d = newcombeInterval(x1, n1, x2, n2);
    close(t, d.lower, lower, 0.00006, `${x1}/${n1} − ${x2}/${n2} lower`);
    close(t, d.upper, upper, 0.00006, `${x1}/${n1} − ${x2}/${n2} upper`);
    t.equal(d.value, x1 / n1 - x2 / n2);
  }
  t.same(newcombeInterval(3, 10, 0, 0), { value: 0.3, lower: 0.3, upper: 0.3 }, 'an empty group: no interval');
});

t.test("Student's t: p-values and quantiles of the tables", async (t) => {
  close(t, tQuantile95(1), 12.7062047, 1e-6, 't(0.975, 1)');
  close(t, tQuantile95(10), 2.2281389, 1e-6, 't(0.975, 10)');
  close(t, tQuantile95(30), 2.0422725, 1e-6, 't(0.975, 30)');
  close(t, tQuantile95(1e6), 1.959966, 1e-5, 't(0.975, ∞) → z');
  close(t, twoSidedTP(2.228138852, 10), 0.05, 1e-8, 'P(|T10| ≥ 2.228)');
  close(t, twoSidedTP(0, 5), 1, 1e-12, 'P(|T| ≥ 0)');
});

t.test("Welch's t reproduces the textbook example (Welch 1947 as in Wikipedia's worked example 1)", async (t) => {
  const a1 = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4];
  const a2 = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4];
  const sums = (xs: number[]) => ({ n: xs.length, sum: xs.reduce((s, x) => s + x, 0), sumSquares: xs.reduce((s, x) => s + x * x, 0) });
  const w = welchInterval(sums(a1), sums(a2));
  // Published: t = −2.46, ν = 24.9, p = 0.021.
  close(t, w.pValue, 0.021, 0.0006, 'p');
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  close(t, w.value, mean(a1) - mean(a2), 1e-12, 'difference of the means');
  const se = Math.sqrt(sampleVariance(sums(a1)) / 15 + sampleVariance(sums(a2)) / 15);
  close(t, w.value / se, -2.46, 0.005, 't');
  // The interval is d ± t(0.975, 24.9) se, and excludes 0 since p < 0.05.
  close(t, (w.upper - w.lower) / 2 / se, tQuantile95(24.9), 0.001, 'half width / se');
  t.ok(w.upper < 0);
  t.same(welchInterval({ n: 1, sum: 5, sumSquares: 25 }, { n: 10, sum: 0, sumSquares: 0 }), { value: 5, lower: 5, upper: 5, pValue: 0 }, 'one visitor: nothing to test');
  t.same(welchInterval({ n: 5, sum: 0, sumSquares: 0 }, { n: 5, sum: 0, sumSquares: 0 }), { value: 0, lower: 0, upper: 0, pValue: 1 }, 'no revenue at all');
});

t.test('visitors for 80 % power at 5 %: the textbook formula', async (t) => {
  // Equal split, σ = 1 both arms, δ = 0.5: N = 2 × 2 × 7.849 / 0.25 = 125.6 (63 per group, the usual table value).
  close(t, visitorsForPower(0.5, 1, 1, 0.5), 125.58, 0.01, 'N');
  t.equal(visitorsForPower(0, 1, 1, 0.1), Number.POSITIVE_INFINITY);
});

t.test('the sample-ratio check against a configured share', async (t) => {
  t.notOk(sampleRatioMismatch(9000, 1000, 0.1).mismatch, '90/10 at 10 %');
  t.ok(sampleRatioMismatch(8500, 1500, 0.1).mismatch, '85/15 at 10 %');
  // χ² = 100²/900 + 100²/100 = 111.1; P(χ²₁ ≥ 111.1) ≈ 5.6e-26.
  t.ok(sampleRatioMismatch(800, 200, 0.1).pValue < 1e-20);
  t.same(sampleRatioMismatch(500, 500), sampleRatioMismatch(500, 500, 0.5), '50/50 by default');
  t.same(sampleRatioMismatch(10, 0, 0), { pValue: 1, mismatch: false }, 'no holdout: nothing to check');
});
