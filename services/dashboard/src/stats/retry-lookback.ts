import { DAY_MS } from '@chatlytics/core';

/**
 * The retry rule of every event statistic (services/dashboard/docs/statistics.md, clickhouse/README.md): a copy in the
 * window of an event_id that was also received in the RETRY_LOOKBACK_MS before the window's
 * start is a retried beacon and does not count. Originals older than that are not looked for.
 *
 * One day: a browser retries a beacon within seconds to hours (sendBeacon / keepalive retries,
 * a tab reopened the same day), so a day covers them with a wide margin, while bounding the
 * deduplication read to one day of the chatbot's rows instead of its whole history (the
 * dominant cost of the statistics queries before). Orders are NOT bounded by it: order numbers
 * stay deduplicated over all time.
 */
export const RETRY_LOOKBACK_MS = DAY_MS;
/** The same in seconds. */
export const RETRY_LOOKBACK_SECONDS = RETRY_LOOKBACK_MS / 1000;

/** The `{dedup_lookback_from}` bound of the statistics queries. */
export function dedupLookbackFrom(from: Date): Date {
  return new Date(from.getTime() - RETRY_LOOKBACK_MS);
}
