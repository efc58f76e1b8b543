import type { Logger } from '@chatlytics/core';
import { sqlFile, type ClickHouseEngine } from '@chatlytics/clickhouse';
import {
  validateTrackingBody, normalizeEvent, eventIdFromSeed, isStoredEvent, type StoredEvent, type FieldErrors,
} from '@chatlytics/events';

export interface BackfillInput {
  event?: unknown;
  token?: unknown;
  data?: unknown;
  ab_test?: unknown;
  receivedAt?: unknown;
}

export interface BackfillSummary {
  /** Valid events in the file (each distinct event id once). */
  accepted: number;
  /** Newly written to ClickHouse by this run (through the bus and the consumer). */
  inserted: number;
  /** Valid, but already in ClickHouse (an earlier import of the same history). */
  alreadyStored: number;
  /** Entries repeating an event id seen earlier in the same file (a retried beacon): kept once. */
  duplicatesInFile: number;
  rejected: { index: number; code: string; errors: FieldErrors }[];
}

// The consumer's own fence query: which of these ids are stored (within a time range).
const EXISTING_IDS_SQL = sqlFile('consumer/existing-event-ids');
// The ids travel as a query parameter (part of the URL against a server): 2,000 UUIDs ≈ 80 kB,
// well under ClickHouse's default 1 MiB http_max_uri_size — the consumer's figure too.
const LOOKUP_ROWS = 2_000;
// Messages per publish: one durable write of the bus each.
const PUBLISH_ROWS = 20_000;

// History is in the past; a few minutes of slack forgive the exporting system's clock skew.
const FUTURE_SLACK_MS = 5 * 60_000;

type Validated = { ok: true; row: StoredEvent } | { ok: false; code: string; errors: FieldErrors };

/** The tracking endpoint's validation and normalisation, with the given receivedAt (see the fixture format in services/standalone/README.md). */
function toStoredEvent(input: BackfillInput, index: number, now: number, log: Logger): Validated {
  // Date.parse alone accepts "5" or "March"; demand something that starts like ISO-8601.
  const receivedAt = typeof input.receivedAt === 'string' && /^\d{4}-\d{2}-\d{2}/.test(input.receivedAt)
    ? new Date(input.receivedAt) : new Date(NaN);
  const time = receivedAt.getTime();
  if (Number.isNaN(time) || time < 0) {
    return { ok: false, code: 'ANALYTICS_005', errors: { receivedAt: ['The receivedAt field must be an ISO-8601 time.'] } };
  }
  if (time > now + FUTURE_SLACK_MS) {
    return { ok: false, code: 'ANALYTICS_005', errors: { receivedAt: ['The receivedAt field must not be in the future.'] } };
  }
  const checked = validateTrackingBody({ event: input.event, token: input.token, data: input.data, ab_test: input.ab_test });
  if (!checked.ok) return { ok: false, code: checked.code, errors: checked.errors };
  // Position is part of the seed: two identical beacons at two places in the history are two events.
  const seed = `${index}\n${JSON.stringify(input)}`;
  const row = normalizeEvent(checked.value, { receivedAt, fallbackEventId: eventIdFromSeed(seed), log });
  // The consumer re-checks every row against the stored shape; so does the backfill.
  if (!isStoredEvent(row)) {
    return { ok: false, code: 'ANALYTICS_005', errors: { event: ['The normalised event does not match the stored shape.'] } };
  }
  return { ok: true, row };
}

async function storedIds(clickhouse: ClickHouseEngine, rows: readonly StoredEvent[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < rows.length; i += LOOKUP_ROWS) {
    const chunk = rows.slice(i, i + LOOKUP_ROWS);
    let from = chunk[0].received_at;
    let to = from;
    // Text comparison is chronological: fixed-width 'YYYY-MM-DD HH:MM:SS.mmm'.
    for (const r of chunk) { if (r.received_at < from) from = r.received_at; if (r.received_at > to) to = r.received_at; }
    const result = await clickhouse.query<{ event_id: string }>(EXISTING_IDS_SQL, { from, to, ids: chunk.map((r) => r.event_id) });
    for (const r of result) found.add(r.event_id.toLowerCase());
  }
  return found;
}

/**
 * Where imported events go: the event bus, whose consumer stores them as it stores tracked
 * events (so the writer that numbers a token's ids is the one of its bus partition, whatever
 * else runs: clickhouse/README.md, "Token ids").
 */
export interface EventSink {
  /** Resolves once the rows are durable on the bus. */
  publish(rows: readonly StoredEvent[]): Promise<void>;
  /** Resolves once the consumer has stored every row published so far. */
  stored(): Promise<void>;
}

/**
 * Tracking history from a fixture lands in ClickHouse exactly once:
 * - an id already stored is left out (the consumer's fence query), so importing the file again,
 *   or a file overlapping an earlier one, writes nothing twice;
 * - the rest goes through the bus like tracked events, keyed by token: the consumer leaves out
 *   an event stored meanwhile (two imports of one file racing each other) and numbers tokens.
 */
export async function backfillEvents(
  clickhouse: ClickHouseEngine, sink: EventSink, events: readonly BackfillInput[], log: Logger, now: Date = new Date(),
): Promise<BackfillSummary> {
  const summary: BackfillSummary = { accepted: 0, inserted: 0, alreadyStored: 0, duplicatesInFile: 0, rejected: [] };
  const rows: StoredEvent[] = [];
  const seen = new Set<string>();
  events.forEach((input, index) => {
    const result = toStoredEvent(input ?? {}, index, now.getTime(), log);
    if (!result.ok) {
      summary.rejected.push({ index, code: result.code, errors: result.errors });
      return;
    }
    const id = result.row.event_id.toLowerCase();
    if (seen.has(id)) {
      summary.duplicatesInFile++;
      return;
    }
    seen.add(id);
    rows.push(result.row);
  });
  summary.accepted = rows.length;

  const stored = rows.length > 0 ? await storedIds(clickhouse, rows) : new Set<string>();
  const fresh = rows.filter((r) => !stored.has(r.event_id.toLowerCase()));
  summary.alreadyStored = rows.length - fresh.length;
  for (let i = 0; i < fresh.length; i += PUBLISH_ROWS) await sink.publish(fresh.slice(i, i + PUBLISH_ROWS));
  if (fresh.length > 0) await sink.stored();
  summary.inserted = fresh.length;
  if (summary.rejected.length > 0) log.warn({ rejected: summary.rejected.length }, 'backfill: invalid events skipped');
  return summary;
}
