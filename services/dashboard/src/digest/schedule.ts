/**
 * When the weekly digest goes out and which days it covers (services/dashboard/README.md
 * "Weekly digest"). Pure functions of the instant they are given, in UTC.
 */
import { DAY_MS, HOUR_MS } from '@chatlytics/core';

export interface DigestSchedule {
  /** ISO weekday: 1 = Monday … 7 = Sunday. */
  weekday: number;
  hourUtc: number;
}

/** A digest's two windows of whole UTC days (`YYYY-MM-DD`, both ends included). */
export interface DigestWindows {
  current: { from: string; to: string };
  previous: { from: string; to: string };
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const midnight = (d: Date) => Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());

/** Monday (UTC) of the ISO week of `now`: the key of a week in digest_sends. */
export function weekStartOf(now: Date): string {
  const day = midnight(now);
  const isoWeekday = ((new Date(day).getUTCDay() + 6) % 7) + 1;
  return isoDay(day - (isoWeekday - 1) * DAY_MS);
}

/** The instant of the week's digest: its weekday at its hour, UTC. */
export function sendTimeOf(weekStart: string, schedule: DigestSchedule): Date {
  return new Date(Date.parse(`${weekStart}T00:00:00.000Z`) + (schedule.weekday - 1) * DAY_MS + schedule.hourUtc * HOUR_MS);
}

/**
 * The week whose digest is due at `now`: the current ISO week once its send time has passed
 * (so a scheduler that was down at the hour catches up later in the week), else none.
 */
export function dueWeek(now: Date, schedule: DigestSchedule): { weekStart: string; sendAt: Date } | null {
  const weekStart = weekStartOf(now);
  const sendAt = sendTimeOf(weekStart, schedule);
  return now.getTime() >= sendAt.getTime() ? { weekStart, sendAt } : null;
}

/** The 7 UTC days ending the day before `sendDay` (a `YYYY-MM-DD`), and the 7 days before those. */
export function digestWindows(sendDay: string): DigestWindows {
  const day = Date.parse(`${sendDay}T00:00:00.000Z`);
  return {
    current: { from: isoDay(day - 7 * DAY_MS), to: isoDay(day - DAY_MS) },
    previous: { from: isoDay(day - 14 * DAY_MS), to: isoDay(day - 8 * DAY_MS) },
  };
}

export const utcDay = (d: Date) => isoDay(midnight(d));
