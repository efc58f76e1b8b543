import t from 'tap';
import { createReport, figureLine } from '../lib/report.js';

t.test('a figure is one JSON line: bench, figure, value, unit, then its context', async (t) => {
  const line = figureLine('bus', 'publish', 49568, 'ev/s', { bus: 'embedded', events: 20000 });
  t.notMatch(line, /\n/);
  t.equal(line, '{"bench":"bus","figure":"publish","value":49568,"unit":"ev/s","bus":"embedded","events":20000}');
  t.same(Object.keys(JSON.parse(line)).slice(0, 4), ['bench', 'figure', 'value', 'unit']);
});

t.test('values: integers as they are, others to 6 significant digits, no number as null', async (t) => {
  const value = (v: number | null) => JSON.parse(figureLine('b', 'f', v, 'ms')).value;
  t.equal(value(12), 12);
  t.equal(value(1.23456789), 1.23457);
  t.equal(value(0.000123456789), 0.000123457);
  t.equal(value(NaN), null);
  t.equal(value(Infinity), null);
  t.equal(value(null), null);
  t.same(JSON.parse(figureLine('b', 'f', 1, 'ms', { min: 0.123456789, n: 3, side: 'base' })), { bench: 'b', figure: 'f', value: 1, unit: 'ms', min: 0.123457, n: 3, side: 'base' }, 'context numbers alike');
});

t.test('context may not replace the fixed keys', async (t) => {
  t.throws(() => figureLine('b', 'f', 1, 'ms', { unit: 's' }), /may not set unit/);
});

t.test('figures go to stdout, text to stderr', async (t) => {
  const out: string[] = [];
  const err: string[] = [];
  const report = createReport('views', (l) => out.push(l), (l) => err.push(l));
  report.figure('CPU per event', 3.5, 'µs', { view: 'events_input_v2_mv' });
  report.figures({ view: 'all' }, [['fixed cost per insert', 119, 'ms'], ['CPU per event', 7.6, 'µs']]);
  report.text('a table', 'its second line');
  t.same(out.map((l) => JSON.parse(l).figure), ['CPU per event', 'fixed cost per insert', 'CPU per event']);
  t.same(out.map((l) => JSON.parse(l).bench), ['views', 'views', 'views']);
  t.same(err, ['a table', 'its second line']);
});
