import { DAY_MS, HOUR_MS, MINUTE_MS } from '@chatlytics/core';
/**
 * Dashboard date formats (see the endpoint details in services/dashboard/docs/api.md). Always UTC: the server's zone must not change
 * what a user sees, and the documented Y-m-d / H:i patterns carry no offset.
 */
const pad = (n: number) => String(n).padStart(2, '0');

/** `Y-m-d`, e.g. `2026-01-31`. */
export function formatDate(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** `Y-m-d H:i`, e.g. `2026-01-31 09:05` (list views). */
export function formatDateTimeMinutes(d: Date): string {
  return `${formatDate(d)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** `Y-m-d H:i:s`, e.g. `2026-01-31 09:05:07` (detail views). */
export function formatDateTimeSeconds(d: Date): string {
  return `${formatDateTimeMinutes(d)}:${pad(d.getUTCSeconds())}`;
}


/**
 * Largest unit first. Weeks stop at 4 and months are 30 days, so "4 weeks ago" is followed by
 * "1 month ago" and "12 months ago" by "1 year ago", as in the usual "diff for humans" wording.
 */
const UNITS: [name: string, ms: number][] = [
  ['year', 365 * DAY_MS],
  ['month', 30 * DAY_MS],
  ['week', 7 * DAY_MS],
  ['day', DAY_MS],
  ['hour', HOUR_MS],
  ['minute', MINUTE_MS],
];

/**
 * "N unit(s) ago" (see the endpoint details in services/dashboard/docs/api.md): `just now` under a minute, then `5 minutes ago`, `1 hour ago`,
 * `3 days ago`… A timestamp in the future (clock skew between writers) also reads `just now`.
 */
export function timeAgo(then: Date, now: Date): string {
  const elapsed = now.getTime() - then.getTime();
  for (const [name, ms] of UNITS) {
    const n = Math.floor(elapsed / ms);
    if (n >= 1) return `${n} ${name}${n === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}
