import type { EventBus } from '@chatlytics/bus';
import { sqlFile, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { isRetriable, type Logger } from '@chatlytics/core';
import { ConsumerErrorCode, RejectReason } from './errors.js';
import { compareSegments, type RejectedMessage, type Segment, type SegmentRow } from './segment.js';
import { insertToken, contentToken } from './dedup-token.js';
import { EVENT_COLUMNS } from './row-binary.js';
import { retrying, type RetryContext } from './retry.js';
import { toDeadLetter, toRejectedRow } from './dead-letter.js';
import type { RecentIds } from './recent-ids.js';
import type { ConsumerMetrics } from './metrics.js';
import type { FlushTrigger } from './insert-buffer.js';

const EXISTING_IDS_SQL = sqlFile('consumer/existing-event-ids');

/**
 * Ids per lookup: they travel as a query parameter, and against a server the parameters are
 * part of the URL (ClickHouse's default http_max_uri_size is 1 MiB; 2,000 UUIDs ≈ 80 kB).
 */
const LOOKUP_CHUNK = 2000;

/**
 * optimize_on_insert=0: ReplacingMergeTree would otherwise collapse equal keys while writing
 * each part; the consumer already left out duplicate ids (selectRows) and every read is
 * dedup-correct, so that pass would be pure cost.
 */
const INSERT_SETTINGS = { optimize_on_insert: 0 };

export interface WriterDeps {
  clickhouse: ClickHouseEngine;
  bus: Pick<EventBus, 'publishDeadLetter'>;
  log: Logger;
  metrics: ConsumerMetrics;
  recent: RecentIds;
  retry: RetryContext;
  /**
   * Poison found while replaying was already dead-lettered on its first pass (or IS a dead
   * letter): recording it again would only duplicate it.
   */
  recordRejects: boolean;
  /** Prefix of every insert token; distinct per replay run so a replay never collides with the consumer. */
  tokenPrefix: string;
}

export interface WriteSummary {
  inserted: number;
  duplicates: number;
  rejected: number;
}

export function createWriter(deps: WriterDeps) {
  const { clickhouse, log, metrics, retry } = deps;
  const body = (rows: readonly SegmentRow[]) => Buffer.concat(rows.map((r) => r.body.subarray(r.start, r.end)));

  async function storedIds(rows: readonly SegmentRow[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < rows.length; i += LOOKUP_CHUNK) {
      const chunk = rows.slice(i, i + LOOKUP_CHUNK);
      let from = chunk[0].receivedAt;
      let to = from;
      // Text comparison is chronological: fixed-width 'YYYY-MM-DD HH:MM:SS.mmm'.
      for (const r of chunk) { if (r.receivedAt < from) from = r.receivedAt; if (r.receivedAt > to) to = r.receivedAt; }
      const result = await retrying('look up stored event ids', retry, () =>
        clickhouse.query<{ event_id: string }>(EXISTING_IDS_SQL, { from, to, ids: chunk.map((r) => r.eventId) }));
      for (const r of result) found.add(r.event_id.toLowerCase());
    }
    return found;
  }

  /** Leave out rows already in this insert, inserted recently, or (fenced segments) already stored. */
  async function selectRows(segments: readonly Segment[]): Promise<{ rows: SegmentRow[]; duplicates: number }> {
    const fenced = segments.filter((s) => s.fenced && s.rows.length > 0);
    const stored = fenced.length > 0 ? await storedIds(fenced.flatMap((s) => s.rows)) : new Set<string>();
    for (const s of fenced) s.tailAlreadyStored = stored.has(s.rows[s.rows.length - 1].eventId);
    const seen = new Set<string>();
    const rows: SegmentRow[] = [];
    let duplicates = 0;
    for (const s of segments) {
      for (const row of s.rows) {
        const id = row.eventId;
        // add + size instead of has + add: one hash lookup fewer per row (20k rows a flush).
        const before = seen.size;
        seen.add(id);
        const where = seen.size === before ? 'batch' : deps.recent.has(id) ? 'recent' : s.fenced && stored.has(id) ? 'stored' : undefined;
        if (where) {
          duplicates++;
          metrics.duplicates.inc({ where });
          continue;
        }
        rows.push(row);
      }
    }
    return { rows, duplicates };
  }

  /** `prepared`: the body when it is exactly the segments' own bodies (nothing left out). */
  async function insert(rows: readonly SegmentRow[], token: string, prepared?: Buffer): Promise<void> {
    const started = performance.now();
    const data = prepared ?? body(rows);
    await retrying('insert into events', retry, () => clickhouse.insert('events', data, { dedupToken: token, settings: INSERT_SETTINGS, format: 'RowBinary', columns: EVENT_COLUMNS }));
    metrics.insertSeconds.observe((performance.now() - started) / 1000);
    metrics.batchRows.observe(rows.length);
  }

  /**
   * ClickHouse refused the INSERT because of a row's data (see isRowRefusal): some row it
   * cannot take although our schema accepted it (none is known since rows are RowBinary built
   * from validated events; this is the safety net). Bisect to find the refused rows (log2(n) rounds for one bad row),
   * insert the rest and return the refused ones as poison: one bad row never blocks a partition.
   */
  async function insertIsolating(rows: readonly SegmentRow[], token: string, err: unknown): Promise<RejectedMessage[]> {
    if (rows.length === 1) {
      const row = rows[0];
      return [{
        reason: RejectReason.InsertRejected, error: (err as Error).message, payload: row.payload, key: row.key,
        partition: row.partition, offset: row.offset, busTimestamp: row.busTimestamp,
      }];
    }
    const mid = Math.ceil(rows.length / 2);
    const refused: RejectedMessage[] = [];
    for (const half of [rows.slice(0, mid), rows.slice(mid)]) {
      const halfToken = contentToken(`${deps.tokenPrefix}:bisect:${token}`, half.map((r) => r.eventId));
      try {
        await insert(half, halfToken);
      } catch (halfErr) {
        if (!isRowRefusal(halfErr)) throw halfErr;
        refused.push(...await insertIsolating(half, halfToken, halfErr));
      }
    }
    return refused;
  }

  async function recordRejects(rejects: RejectedMessage[], stream: string): Promise<void> {
    for (const r of rejects) metrics.rejects.inc({ reason: r.reason });
    if (rejects.length === 0) return;
    if (!deps.recordRejects) {
      log.warn({ count: rejects.length, stream, first: rejects[0].error }, 'poison while replaying: already recorded on its first pass, not recorded again');
      return;
    }
    const token = contentToken(`${deps.tokenPrefix}:rejected`, rejects.map((r) => `${stream}:${r.partition}:${r.offset}`));
    try {
      await retrying('insert into events_rejected', retry, () => clickhouse.insert('events_rejected', rejects.map(toRejectedRow), { dedupToken: token }));
    } catch (err) {
      if (isRetriable(err) || (err as { code?: unknown }).code === ConsumerErrorCode.StoppedDuringRetry) throw err;
      // The dead-letter stream below is the durable record; the table is the queryable copy.
      log.error({ err, count: rejects.length }, 'events_rejected refused the rows; they are still dead-lettered');
    }
    await retrying('publish dead letters', retry, () => deps.bus.publishDeadLetter(rejects.map((r) => toDeadLetter(r, stream))));
    log.warn({ count: rejects.length, reasons: [...new Set(rejects.map((r) => r.reason))], first: { partition: rejects[0].partition, offset: rejects[0].offset, error: rejects[0].error } }, 'poison messages dead-lettered');
  }

  /** One flush: insert every row of the segments in ONE insert, then record the poison. */
  async function write(input: readonly Segment[], trigger: FlushTrigger): Promise<WriteSummary> {
    metrics.flushes.inc({ trigger });
    const segments = [...input].sort(compareSegments);
    const selected = await selectRows(segments);
    const { duplicates } = selected;
    let rows = selected.rows;
    const rejects = segments.flatMap((s) => s.rejects);
    if (rows.length > 0) {
      const token = insertToken(deps.tokenPrefix, segments, rows);
      try {
        // The usual case, no duplicate left out: the segments' bodies are the insert as is.
        const whole = duplicates === 0 ? Buffer.concat(segments.map((s) => s.body)) : undefined;
        await insert(rows, token, whole);
      } catch (err) {
        if (!isRowRefusal(err)) throw err;
        log.error({ err, rows: rows.length }, 'ClickHouse refused a row of an insert: isolating the refused rows');
        const refused = await insertIsolating(rows, token, err);
        const refusedAt = new Set(refused.map((r) => `${r.partition}:${r.offset}`));
        rows = rows.filter((r) => !refusedAt.has(`${r.partition}:${r.offset}`));
        for (const r of refused) rejects.push(r);
      }
    }
    await recordRejects(rejects, segments[0]?.stream ?? 'events');
    for (const row of rows) deps.recent.add(row.eventId);
    metrics.rowsWritten.inc(rows.length);
    const now = Date.now();
    for (const s of segments) {
      if (Number.isFinite(s.oldestBusTimestamp)) metrics.freshnessSeconds.observe(Math.max(0, now - s.oldestBusTimestamp) / 1000);
    }
    return { inserted: rows.length, duplicates, rejected: rejects.length };
  }

  return { write };
}

/**
 * ClickHouse error codes that blame the data of some row (parse and conversion failures).
 * Only these are bisected down to the guilty rows; any other non-retriable refusal (unknown
 * table or column, read-only, a bad setting) is about the deployment, not a row: the batch
 * then fails uncommitted and is redelivered after the bus's back-off, so a misconfiguration
 * stalls the pipeline loudly instead of dead-lettering every event.
 */
const ROW_DATA_ERROR_CODES = new Set([
  6, // CANNOT_PARSE_TEXT
  26, // CANNOT_PARSE_QUOTED_STRING
  27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  38, // CANNOT_PARSE_DATE
  41, // CANNOT_PARSE_DATETIME
  53, // TYPE_MISMATCH
  69, // ARGUMENT_OUT_OF_BOUND
  70, // CANNOT_CONVERT_TYPE
  72, // CANNOT_PARSE_NUMBER
  117, // INCORRECT_DATA (e.g. a duplicated key in a JSONEachRow row)
  131, // TOO_LARGE_STRING_SIZE
  321, // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  376, // CANNOT_PARSE_UUID
  377, // CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING
]);

function isRowRefusal(err: unknown): boolean {
  if (isRetriable(err)) return false;
  const code = (err as { clickhouseCode?: unknown }).clickhouseCode;
  return typeof code === 'number' && ROW_DATA_ERROR_CODES.has(code);
}

export type Writer = ReturnType<typeof createWriter>;
