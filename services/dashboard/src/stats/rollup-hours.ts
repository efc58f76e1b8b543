import type { StatsWindow } from './timeframe.js';

const HOUR_MS = 3_600_000;

/**
 * The whole clock hours [from, to) inside a window (both window ends inclusive, millisecond
 * times): the statistics read these from the hourly rollups and only the ragged ends from rows.
 * A window without a whole hour gives from >= to, which the views read as "no hour".
 */
export function wholeHours(w: StatsWindow): { from: Date; to: Date } {
  const from = Math.ceil(w.from.getTime() / HOUR_MS) * HOUR_MS;
  // The window holds the hour starting at h when h + 1 h - 1 ms <= to.
  const to = Math.floor((w.to.getTime() + 1) / HOUR_MS) * HOUR_MS;
  return { from: new Date(from), to: new Date(to) };
}
