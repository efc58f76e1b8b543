/**
 * The lengths of the UTC calendar that every service computes windows with. UTC has no daylight
 * saving, so a day is always 24 hours and plain millisecond arithmetic is exact.
 */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/**
 * 1900-01-01T00:00:00Z, the first instant a ClickHouse DateTime64(3) holds: a window reaching
 * further back is refused, not clamped.
 */
export const EARLIEST_DAY = Date.UTC(1900, 0, 1);

/** The longest "last N days" window a statistic or the analytics page accepts. */
export const MAX_TIMEFRAME_DAYS = 365;

/** A range of whole UTC days as the insights timeframe and its links write it: `from..to` (YYYY-MM-DD each). */
export const DAY_RANGE = /^([0-9]{4}-[0-9]{2}-[0-9]{2})\.\.([0-9]{4}-[0-9]{2}-[0-9]{2})$/;
