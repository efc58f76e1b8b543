import type { FieldErrors } from '../errors.js';
import type { StatsWindow } from './timeframe.js';

/**
 * The custom window of the day-count statistics (see the statistics definitions in
 * services/dashboard/README.md): whole UTC days `from` to `to`, both included. One pure check,
 * used by the JSON API (through the statistics service) and by the analytics page, so both
 * refuse the same ranges with the same messages.
 */
export interface DateRange { from: string; to: string }

/** What a day-count statistic is asked for: the last N days, or a range of whole days. */
export type StatsFrame = number | DateRange;

/** At most a leap year: "the whole of last year" must fit, a longer read must not. */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;
const ISO_DAY = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
/** DateTime64(3) holds 1900–2299; as for the insights timeframe, earlier is refused, not clamped. */
const EARLIEST = Date.UTC(1900, 0, 1);

export const RANGE_MESSAGES = {
  both: 'Choose either a number of days or a date range, not both.',
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
  if (from !== null && from < EARLIEST) errors.from = [RANGE_MESSAGES.tooEarly];
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
