import { rangeWindow, type StatsFrame } from './date-range.js';
import { daysWindow, type StatsWindow } from './timeframe.js';

/**
 * The windows of a day-count statistic and of its comparison (`compare=previous`, see the
 * statistics definitions in services/dashboard/README.md). Pure functions of the frame and the
 * `now` they are given, so tests pin the clock.
 */
export interface DaysWindow {
  /** `timeframe_days` of the answer. */
  days: number;
  window: StatsWindow;
}

const DAY_MS = 86_400_000;
/** DateTime64(3) holds 1900–2299: a previous period reaching further back is refused, not clamped. */
export const EARLIEST_PREVIOUS = Date.UTC(1900, 0, 1);

/** `W` of a frame: the last N days up to `now`, or a range of whole UTC days cut at `now`. */
export function frameWindow(frame: StatsFrame, now: Date): DaysWindow {
  return typeof frame === 'number' ? { days: frame, window: daysWindow(frame, now) } : rangeWindow(frame, now);
}

/**
 * The previous period of `W`: as many days, ending where `W` starts, one millisecond before it
 * (`W` includes its first millisecond, and no event may count in both). For the last N days that
 * is `[now − 2N days, now − N days − 1 ms]`; for a range of N days, the N whole days before
 * `from` (a range cut at `now` keeps its full length: its previous period is never cut).
 * Plain millisecond arithmetic: UTC has no daylight saving, and a month compares with the same
 * number of days before it, not with the calendar month before.
 */
export function previousWindow(current: DaysWindow): DaysWindow {
  const start = current.window.from.getTime();
  return { days: current.days, window: { from: new Date(start - current.days * DAY_MS), to: new Date(start - 1) } };
}
