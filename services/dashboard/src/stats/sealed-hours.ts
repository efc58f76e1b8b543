import { clickhouseTime, parseClickhouseTime } from '@chatlytics/clickhouse';

const HOUR_MS = 3_600_000;

/** How the *_sealed.sql statistics are told their sealed hours (clickhouse/queries/shared/sealed_hours.sql). */
export interface SealedHoursParams {
  /** Start of the first sealed hour (DateTime64 text). */
  sealed_from: string;
  /** End of the last sealed hour. */
  sealed_until: string;
  /** The hours in between that are not sealed ('YYYY-MM-DD HH:MM:SS', DateTime text). */
  holes: string[];
}

/** A ClickHouse DateTime('UTC') text ('YYYY-MM-DD HH:MM:SS') as epoch milliseconds. */
const hourMs = (text: string) => {
  const ms = parseClickhouseTime(text);
  if (!Number.isFinite(ms) || ms % HOUR_MS !== 0) throw new TypeError(`not an hour: ${text}`);
  return ms;
};

/**
 * The sealed hours of a window (stats_sealed_hours.sql: whole-hour DateTime texts, any order)
 * as one run and its holes, or null when there is none (the statistic then reads its rows).
 * Three values instead of the list keep the query text small however long the window.
 */
export function sealedHoursParams(hours: readonly string[]): SealedHoursParams | null {
  if (hours.length === 0) return null;
  const sealed = new Set(hours.map(hourMs));
  const first = Math.min(...sealed);
  const last = Math.max(...sealed);
  const holes: string[] = [];
  for (let t = first + HOUR_MS; t < last; t += HOUR_MS) {
    if (!sealed.has(t)) holes.push(clickhouseTime(t).slice(0, 19));
  }
  return { sealed_from: clickhouseTime(first), sealed_until: clickhouseTime(last + HOUR_MS), holes };
}

/**
 * Whether a window's sealed run is settled: no row arrived since the sealer last checked with a
 * received_at before the run's end (`lateFrom`: the earliest such arrival's received_at,
 * stats_sealed_hours.sql's late_from, null when none arrived). Then every sealed purchase's facts
 * are as the seal saw them and a statistic may leave out the completions the general query reads
 * for late arrivals (stats_purchases_sealed_settled.sql). An arrival at or after the run's end
 * cannot precede a sealed purchase.
 */
export function settledRun(sealed: SealedHoursParams, lateFrom: string | null): boolean {
  return lateFrom === null || parseClickhouseTime(lateFrom) >= parseClickhouseTime(sealed.sealed_until);
}
