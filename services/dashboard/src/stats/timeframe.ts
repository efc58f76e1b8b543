import { checkDateRange, rangeWindow } from './date-range.js';

/**
 * Statistics windows (see the statistics definitions in services/dashboard/README.md): W = [start, now], both ends inclusive, in UTC.
 * Pure functions of their inputs and of the `now` they are given, so tests pin the clock.
 */
export interface StatsWindow {
  from: Date;
  to: Date;
}

const DAY_MS = 86_400_000;
const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: DAY_MS, week: 7 * DAY_MS } as const;
const SHORTCUT_DAYS: Record<string, number> = { day: 1, week: 7, month: 30 };
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
/** DateTime64(3) holds 1900–2299; a window reaching further back is refused, not clamped. */
const EARLIEST = Date.UTC(1900, 0, 1);

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

/** A range of whole days in the insights timeframe: `from..to`. */
const INSIGHTS_RANGE = /^([0-9]{4}-[0-9]{2}-[0-9]{2})\.\.([0-9]{4}-[0-9]{2}-[0-9]{2})$/;

export type TimeframeResult = { ok: true; window: StatsWindow } | { ok: false; message: string };

/**
 * The insights timeframe (see the statistics definitions in services/dashboard/README.md), case-insensitive and trimmed:
 * `day|week|month` = 1, 7, 30 days; `N minute(s)|hour(s)|day(s)|week(s)|month(s)` with N ≥ 1
 * (months are calendar months); a month name = the first day of that month, 00:00 UTC, of
 * `now`'s year (a month later in the year gives an empty window: it has not started yet);
 * a positive integer = that many days; `YYYY-MM-DD..YYYY-MM-DD` = those whole UTC days, as `from`/`to`
 * of the day-count statistics (same rules, same window). Anything else is refused.
 */
export function parseInsightsTimeframe(raw: string, now: Date): TimeframeResult {
  const text = raw.trim().toLowerCase();
  const range = INSIGHTS_RANGE.exec(text);
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
  if (!(from.getTime() >= EARLIEST)) {
    return { ok: false, message: 'The timeframe reaches too far back.' };
  }
  return { ok: true, window: { from, to } };
}
