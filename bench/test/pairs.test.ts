import t from 'tap';
import { alternate, compare, reportComparison, summarize } from '../lib/pairs.js';
import { createReport } from '../lib/report.js';
import { median, medianBy, quantile } from '../lib/stats.js';

t.test('alternate runs every side once per round, in order, flipped on odd rounds when asked', async (t) => {
  const order: string[] = [];
  const side = (name: string) => async (round: number) => { order.push(`${name}${round}`); return round * 10 + name.length; };
  const samples = await alternate(3, { a: side('a'), bb: side('bb') });
  t.same(order, ['a0', 'bb0', 'a1', 'bb1', 'a2', 'bb2']);
  t.same(samples, { a: [1, 11, 21], bb: [2, 12, 22] }, 'samples by side, in round order');

  order.length = 0;
  const rounds: unknown[] = [];
  await alternate(3, { a: side('a'), bb: side('bb'), ccc: side('ccc') }, { flip: true, onRound: (round, s) => { rounds.push([round, s]); } });
  t.same(order, ['a0', 'bb0', 'ccc0', 'ccc1', 'bb1', 'a1', 'a2', 'bb2', 'ccc2']);
  t.same(rounds[1], [1, { ccc: 13, bb: 12, a: 11 }], 'each round\'s samples after it');
});

t.test('summaries and the comparison of two sides', async (t) => {
  t.same(summarize([3, 1, 2, 10]), { n: 4, min: 1, median: 3, max: 10 }, 'the upper middle of an even count');
  t.same(summarize([]), { n: 0, min: NaN, median: NaN, max: NaN });
  const cmp = compare([10, 20, 10, 40], [5, 30, 9, 20]);
  t.same(cmp.baseline, { n: 4, min: 10, median: 20, max: 40 });
  t.same(cmp.candidate, { n: 4, min: 5, median: 20, max: 30 });
  t.equal(cmp.ratio, 1, 'median over median');
  t.equal(cmp.pairRatio, 0.9, 'median of 0.5, 1.5, 0.9, 0.5');
  t.equal(cmp.candidateLower, 3);
  t.equal(cmp.pairs, 4);
});

t.test('a comparison reported as figures: each side, then the ratio', async (t) => {
  const lines: string[] = [];
  const report = createReport('cpu-ab', (l) => lines.push(l), () => {});
  reportComparison(report, 'server CPU per request', 'µs', compare([10, 12], [9, 9]), { baseline: 'base', candidate: 'this' }, { rate: 6000 });
  t.same(lines.map((l) => JSON.parse(l)), [
    { bench: 'cpu-ab', figure: 'server CPU per request', value: 12, unit: 'µs', rate: 6000, side: 'base', min: 10, max: 12, n: 2 },
    { bench: 'cpu-ab', figure: 'server CPU per request', value: 9, unit: 'µs', rate: 6000, side: 'this', min: 9, max: 9, n: 2 },
    { bench: 'cpu-ab', figure: 'server CPU per request ratio', value: 0.75, unit: '×', rate: 6000, of: 'this ÷ base', pairRatio: 0.9, candidateLower: 2, pairs: 2 },
  ]);
});

t.test('the shared statistics', async (t) => {
  t.equal(median([5, 1, 3]), 3);
  t.equal(median([4, 1, 3, 2]), 3, 'the upper middle');
  t.same(medianBy([{ rps: 3, id: 'a' }, { rps: 1, id: 'b' }, { rps: 2, id: 'c' }], (r) => r.rps), { rps: 2, id: 'c' }, 'a whole sample');
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
  t.equal(quantile(sorted, 0.5), 51);
  t.equal(quantile(sorted, 0.99), 100);
  t.equal(quantile(sorted, 1), 100, 'never past the end');
});
