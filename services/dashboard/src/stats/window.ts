import { DAY_MS, DAY_RANGE, EARLIEST_DAY, HOUR_MS, MAX_TIMEFRAME_DAYS, MINUTE_MS } from '@chatlytics/core';
import type { FieldErrors } from '../http/errors.js';

/**
 * Statistics windows (see the statistics definitions in services/dashboard/docs/statistics.md): W = [start, now], both ends inclusive, in UTC.
 * Pure functions of their inputs and of the `now` they are given, so tests pin the clock.
 */
export interface StatsWindow {
  from: Date;
  to: Date;
}

const UNIT_MS = { minute: MINUTE_MS, hour: HOUR_MS, day: DAY_MS, week: 7 * DAY_MS } as const;
const SHORTCUT_DAYS: Record<string, number> = { day: 1, week: 7, month: 30 };
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** The four integer-timeframe statistics: the last `days` days up to `now`. */
export function daysWindow(days: number, now: Date): StatsWindow {
  return { from: new Date(now.getTime() - days * DAY_MS), to: new Date(now.getTime()) };
}

/** `YYYY-MM-DD` of the UTC day (start_date / end_date). */
export function utcDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/**
 * `now` minus `months` calendar months. A day that does not exist in the target month is
 * clamped to that month's last day (31 March − 1 month = 28/29 February), as calendars do,
 * instead of JavaScript's overflow into the next month.
 */
export function subtractMonths(now: Date, months: number): Date {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth() - months;
  const targetYear = y + Math.floor(m / 12);
  const targetMonth = ((m % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(targetYear, targetMonth + 1, 0)).getUTCDate();
  const d = new Date(now.getTime());
  d.setUTCFullYear(targetYear, targetMonth, Math.min(now.getUTCDate(), lastDay));
  return d;
}

export type TimeframeResult = { ok: true; window: StatsWindow } | { ok: false; message: string };

/**
 * The insights timeframe (see the statistics definitions in services/dashboard/docs/statistics.md), case-insensitive and trimmed:
 * `day|week|month` = 1, 7, 30 days; `N minute(s)|hour(s)|day(s)|week(s)|month(s)` with N ≥ 1
 * (months are calendar months); a month name = the first day of that month, 00:00 UTC, of
 * `now`'s year (a month later in the year gives an empty window: it has not started yet);
 * a positive integer = that many days; `YYYY-MM-DD..YYYY-MM-DD` = those whole UTC days, as `from`/`to`
 * of the day-count statistics (same rules, same window). Anything else is refused.
 */
export function parseInsightsTimeframe(raw: string, now: Date): TimeframeResult {
  const text = raw.trim().toLowerCase();
  const range = DAY_RANGE.exec(text);
  if (range) {
    const checked = checkDateRange(range[1], range[2], now);
    if (!checked.ok) return { ok: false, message: Object.values(checked.errors).flat().join(' ') };
    return { ok: true, window: rangeWindow(checked.range, now).window };
  }
  const to = new Date(now.getTime());
  let from: Date | undefined;

  if (text in SHORTCUT_DAYS) {
    from = new Date(now.getTime() - SHORTCUT_DAYS[text] * DAY_MS);
  } else if (MONTHS.includes(text)) {
    from = new Date(Date.UTC(now.getUTCFullYear(), MONTHS.indexOf(text), 1));
  } else if (/^[0-9]+$/.test(text)) {
    const days = Number(text);
    if (days >= 1) from = new Date(now.getTime() - days * DAY_MS);
  } else {
    const match = /^([0-9]+)\s+(minute|hour|day|week|month)s?$/.exec(text);
    const n = match ? Number(match[1]) : 0;
    if (match && n >= 1) {
      const unit = match[2] as keyof typeof UNIT_MS | 'month';
      from = unit === 'month' ? subtractMonths(now, n) : new Date(now.getTime() - n * UNIT_MS[unit]);
    }
  }

  if (!from) {
    return { ok: false, message: 'The timeframe must be day, week, month, a month name, a number of days, or "N minutes|hours|days|weeks|months".' };
  }
  if (!(from.getTime() >= EARLIEST_DAY)) {
    return { ok: false, message: 'The timeframe reaches too far back.' };
  }
  return { ok: true, window: { from, to } };
}

/**
 * The custom window of the day-count statistics (see the statistics definitions in
 * services/dashboard/docs/statistics.md): whole UTC days `from` to `to`, both included. One pure check,
 * used by the JSON API (through the statistics service) and by the analytics page, so both
 * refuse the same ranges with the same messages.
 */
export interface DateRange { from: string; to: string }

/** What a day-count statistic is asked for: the last N days, or a range of whole days. */
export type StatsFrame = number | DateRange;

/** At most a leap year: "the whole of last year" must fit, a longer read must not. */
export const MAX_RANGE_DAYS = 366;
const ISO_DAY = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** When a query names no window: the last 7 days. */
export const DEFAULT_TIMEFRAME_DAYS = 7;

export const RANGE_MESSAGES = {
  both: 'Choose either a number of days or a date range, not both.',
  days: `The timeframe must be a whole number of days from 1 to ${MAX_TIMEFRAME_DAYS}.`,
  format: (field: string) => `The ${field} date must be a date such as 2026-01-31.`,
  required: (field: string) => `The ${field} date is required for a date range.`,
  order: 'The to date must not be before the from date.',
  tooLong: `The date range must not be longer than ${MAX_RANGE_DAYS} days.`,
  future: 'The to date must not be after today (UTC).',
  tooEarly: 'The from date must not be before 1900-01-01.',
} as const;

/** Midnight UTC of a real calendar day `YYYY-MM-DD` (2026-02-30 is not one), else null. */
function parseDay(text: string): number | null {
  const m = ISO_DAY.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  return back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d ? t : null;
}

export type RangeResult = { ok: true; range: DateRange } | { ok: false; errors: FieldErrors };

/**
 * `from` and `to` as typed (missing = empty). Every message for every field at once, as the
 * 422 body lists them; the order and length checks only when both days are readable.
 */
export function checkDateRange(rawFrom: string | undefined, rawTo: string | undefined, now: Date): RangeResult {
  const errors: FieldErrors = {};
  const read = (field: 'from' | 'to', raw: string | undefined) => {
    const text = (raw ?? '').trim();
    if (text === '') { errors[field] = [RANGE_MESSAGES.required(field)]; return null; }
    const t = parseDay(text);
    if (t === null) errors[field] = [RANGE_MESSAGES.format(field)];
    return t;
  };
  const from = read('from', rawFrom);
  const to = read('to', rawTo);
  if (from !== null && from < EARLIEST_DAY) errors.from = [RANGE_MESSAGES.tooEarly];
  if (to !== null) {
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const toErrors: string[] = [];
    if (to > today) toErrors.push(RANGE_MESSAGES.future);
    if (from !== null && to < from) toErrors.push(RANGE_MESSAGES.order);
    if (from !== null && rangeDays(from, to) > MAX_RANGE_DAYS) toErrors.push(RANGE_MESSAGES.tooLong);
    if (toErrors.length) errors.to = toErrors;
  }
  if (Object.keys(errors).length || from === null || to === null) return { ok: false, errors };
  return { ok: true, range: { from: isoDay(from), to: isoDay(to) } };
}

const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);
const rangeDays = (from: number, to: number) => Math.round((to - from) / DAY_MS) + 1;

/**
 * The window of a checked range: from the first day's 00:00:00.000 to the last day's
 * 23:59:59.999 UTC, cut at `now` (today's numbers so far; the future has no events but would
 * make the window claim it). `days` counts the calendar days, `timeframe_days` of the answer.
 */
export function rangeWindow(range: DateRange, now: Date): { days: number; window: StatsWindow } {
  const from = parseDay(range.from)!;
  const to = parseDay(range.to)!;
  const end = Math.min(to + DAY_MS - 1, now.getTime());
  return { days: rangeDays(from, to), window: { from: new Date(from), to: new Date(end) } };
}

/**
 * The windows of a day-count statistic and of its comparison (`compare=previous`, see the
 * statistics definitions in services/dashboard/docs/statistics.md). Pure functions of the frame and the
 * `now` they are given, so tests pin the clock.
 */
export interface DaysWindow {
  /** `timeframe_days` of the answer. */
  days: number;
  window: StatsWindow;
}

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

/** The previous period would reach before EARLIEST_DAY: `compare=previous` is refused for such a frame. */
export const previousTooEarly = (current: DaysWindow) => previousWindow(current).window.from.getTime() < EARLIEST_DAY;

export type FrameResult = { ok: true; frame: StatsFrame } | { ok: false; errors: FieldErrors };

/**
 * What a JSON query or the analytics page asked for: `from`/`to` when either is present (the
 * page's range form always sends both, even empty), else `timeframe` days (default 7). Both at
 * once is refused, not guessed at (a blank timeframe is no timeframe). A day count is a whole
 * number from 1 to MAX_TIMEFRAME_DAYS, as text (the page) or a number (the JSON API's schema
 * has already checked it). Errors are keyed by the query field they are about.
 */
export function parseFrame(q: { timeframe?: string | number; from?: string; to?: string }, now: Date): FrameResult {
  const timeframe = q.timeframe === undefined ? '' : String(q.timeframe).trim();
  if (q.from === undefined && q.to === undefined) {
    if (timeframe === '') return { ok: true, frame: DEFAULT_TIMEFRAME_DAYS };
    const days = Number(timeframe);
    if (!/^[0-9]+$/.test(timeframe) || days < 1 || days > MAX_TIMEFRAME_DAYS) return { ok: false, errors: { timeframe: [RANGE_MESSAGES.days] } };
    return { ok: true, frame: days };
  }
  if (timeframe !== '') return { ok: false, errors: { timeframe: [RANGE_MESSAGES.both] } };
  const checked = checkDateRange(q.from, q.to, now);
  return checked.ok ? { ok: true, frame: checked.range } : checked;
}
