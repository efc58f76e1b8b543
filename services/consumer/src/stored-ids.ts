import { sqlFile, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { formatReceivedAt } from '@chatlytics/events';
import { rowEventId, rowReceivedAt, type Segment } from './segment.js';
import { retrying, type RetryContext } from './retry.js';

const STORED_RANGE_SQL = sqlFile('consumer/stored-time-range');
const EXISTING_IDS_SQL = sqlFile('consumer/existing-event-ids');

/**
 * Ids per lookup: they travel as a query parameter, and against a server the parameters are
 * part of the URL (ClickHouse's default http_max_uri_size is 1 MiB; 2,000 UUIDs ≈ 80 kB).
 */
const LOOKUP_CHUNK = 2000;

export interface StoredIdsDeps {
  clickhouse: ClickHouseEngine;
  retry: RetryContext;
}

/**
 * Event ids of fenced segments (redelivered after a start or a failure) already in `events`.
 * First one range query (stored-time-range.sql): with nothing stored in the segments' time
 * range — the common case — no id is looked up; otherwise only rows received between the
 * first and last stored event of that range can be stored, and only those ids are looked up.
 * Rare path, so text ids are fine here: ClickHouse returns them as text anyway.
 */
export function createStoredIdLookup(deps: StoredIdsDeps) {
  const { clickhouse, retry } = deps;
  const params = (from: number, to: number) => ({ from: formatReceivedAt(new Date(from)), to: formatReceivedAt(new Date(to)) });

  async function storedRange(from: number, to: number): Promise<{ first: number; last: number } | undefined> {
    const [row] = await retrying('look up the stored time range', retry, () =>
      clickhouse.query<{ stored: string | number; first_ms: string; last_ms: string }>(STORED_RANGE_SQL, params(from, to)));
    return row && Number(row.stored) > 0 ? { first: Number(row.first_ms), last: Number(row.last_ms) } : undefined;
  }

  return async function storedIds(fenced: readonly Segment[]): Promise<Set<string>> {
    const found = new Set<string>();
    // Each row's time read once: it bounds the range query, then picks the candidates.
    const times = fenced.map((s) => Float64Array.from({ length: s.rowCount }, (_, i) => rowReceivedAt(s, i)));
    let from = Infinity;
    let to = -Infinity;
    for (const t of times) for (const at of t) { if (at < from) from = at; if (at > to) to = at; }
    if (from > to) return found;
    const range = await storedRange(from, to);
    if (!range) return found;
    const rows: { id: string; at: number }[] = [];
    fenced.forEach((s, k) => times[k].forEach((at, i) => {
      if (at >= range.first && at <= range.last) rows.push({ id: rowEventId(s, i), at });
    }));
    for (let i = 0; i < rows.length; i += LOOKUP_CHUNK) {
      const chunk = rows.slice(i, i + LOOKUP_CHUNK);
      let lo = chunk[0].at;
      let hi = lo;
      for (const r of chunk) { if (r.at < lo) lo = r.at; if (r.at > hi) hi = r.at; }
      const result = await retrying('look up stored event ids', retry, () =>
        clickhouse.query<{ event_id: string }>(EXISTING_IDS_SQL, { ...params(lo, hi), ids: chunk.map((r) => r.id) }));
      for (const r of result) found.add(r.event_id.toLowerCase());
    }
    return found;
  };
}
