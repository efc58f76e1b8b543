/**
 * The previous period of `compare=previous` (src/stats/window.ts): as many days as `W`,
 * ending one millisecond before `W` starts, for the last N days and for ranges, across month,
 * year and leap-day boundaries.
 */
import t from 'tap';
import { frameWindow, previousWindow } from '../src/stats/window.js';
import { utcDate } from '../src/stats/window.js';

const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);
/** The previous period of a frame as [days, first ms, last ms, start_date, end_date]. */
const previous = (frame: Parameters<typeof frameWindow>[0], now: string) => {
  const p = previousWindow(frameWindow(frame, at(now)));
  return [p.days, p.window.from.toISOString(), p.window.to.toISOString(), utcDate(p.window.from), utcDate(p.window.to)];
};

t.test('the last N days: [now − 2N days, now − N days − 1 ms]', async (t) => {
  t.same(previous(7, '2026-02-10T08:00:00.000Z'),
    [7, '2026-01-27T08:00:00.000Z', '2026-02-03T07:59:59.999Z', '2026-01-27', '2026-02-03'], '7 days');
  t.same(previous(1, '2026-03-01T00:30:00.000Z'),
    [1, '2026-02-27T00:30:00.000Z', '2026-02-28T00:29:59.999Z', '2026-02-27', '2026-02-28'], '1 day across the end of February');
  t.same(previous(30, '2026-01-15T12:00:00.000Z'),
    [30, '2025-11-16T12:00:00.000Z', '2025-12-16T11:59:59.999Z', '2025-11-16', '2025-12-16'], '30 days across the year');
  t.same(previous(365, '2024-12-31T23:59:59.999Z'),
    [365, '2023-01-01T23:59:59.999Z', '2024-01-01T23:59:59.998Z', '2023-01-01', '2024-01-01'], '365 days in a leap year: W starts 1 January, its previous period a year before');
  for (const days of [1, 7, 30, 90, 365]) {
    const now = at('2026-02-10T08:00:00.000Z');
    const w = frameWindow(days, now);
    const p = previousWindow(w);
    t.equal(p.window.to.getTime(), w.window.from.getTime() - 1, `${days}: ends the millisecond before W starts`);
    t.equal(p.window.to.getTime() - p.window.from.getTime(), w.window.to.getTime() - w.window.from.getTime() - 1, `${days}: as long as W, less its shared millisecond`);
  }
});

t.test('a range of N days: the N whole days before from', async (t) => {
  const now = '2026-06-15T10:00:00.000Z';
  t.same(previous({ from: '2026-03-01', to: '2026-03-31' }, now),
    [31, '2026-01-29T00:00:00.000Z', '2026-02-28T23:59:59.999Z', '2026-01-29', '2026-02-28'], 'March: 31 days before, not "February"');
  t.same(previous({ from: '2024-03-01', to: '2024-03-31' }, now),
    [31, '2024-01-30T00:00:00.000Z', '2024-02-29T23:59:59.999Z', '2024-01-30', '2024-02-29'], 'March of a leap year: ends on 29 February');
  t.same(previous({ from: '2026-01-01', to: '2026-01-10' }, now),
    [10, '2025-12-22T00:00:00.000Z', '2025-12-31T23:59:59.999Z', '2025-12-22', '2025-12-31'], 'across the new year');
  t.same(previous({ from: '2026-02-01', to: '2026-02-01' }, now),
    [1, '2026-01-31T00:00:00.000Z', '2026-01-31T23:59:59.999Z', '2026-01-31', '2026-01-31'], 'one day: the day before');
  t.same(previous({ from: '2025-06-15', to: '2026-06-15' }, now),
    [366, '2024-06-14T00:00:00.000Z', '2025-06-14T23:59:59.999Z', '2024-06-14', '2025-06-14'], '366 days, the longest range');
  t.same(previous({ from: '2026-06-06', to: '2026-06-15' }, now),
    [10, '2026-05-27T00:00:00.000Z', '2026-06-05T23:59:59.999Z', '2026-05-27', '2026-06-05'], 'a range ending today, cut at now: the previous period is 10 whole days');
});
