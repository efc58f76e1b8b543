import type { EventBus } from '@chatlytics/bus';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { isRetriable, type Logger } from '@chatlytics/core';
import { ConsumerErrorCode, RejectReason } from './errors.js';
import { compareSegments, rowAsRejected, rowEventId, type RejectedMessage, type Segment } from './segment.js';
import { excludeRows, forEachSelected, refsBody, selectedRefs, selectionBody, selectionIds, type RowRef, type Selection } from './row-selection.js';
import { IdKey, IdTable } from './id-table.js';
import { returnBody } from './body-pool.js';
import { createStoredIdLookup } from './stored-ids.js';
import { insertToken, contentToken } from './dedup-token.js';
import { EVENT_COLUMNS } from './row-binary.js';
import { retrying, type RetryContext } from './retry.js';
import { toDeadLetter, toRejectedRow } from './dead-letter.js';
import type { RecentIds } from './recent-ids.js';
import type { ConsumerMetrics } from './metrics.js';
import type { FlushTrigger } from './insert-buffer.js';

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
  const storedIds = createStoredIdLookup({ clickhouse, retry });
  /**
   * Per write in progress, the ids it is inserting (its own duplicate check, and the other
   * concurrent write's: a retried beacon split across two in-flight flushes is still caught).
   * Spare tables are reused: clearing costs far less than allocating (body-pool.ts says why).
   */
  const inFlight = new Set<IdTable>();
  const spareTables: IdTable[] = [];
  function tableFor(rows: number): IdTable {
    const spare = spareTables.pop();
    // Made again when a flush is bigger, or far smaller (clearing a backlog-sized table for
    // each small live flush is waste).
    if (spare && spare.capacity >= rows && spare.capacity <= 8 * Math.max(rows, 1024)) {
      spare.clear();
      return spare;
    }
    return new IdTable(Math.max(rows, 1024));
  }

  /**
   * Leave out rows already in this insert, in a concurrent one, inserted recently, or (fenced
   * segments) already stored. `seen` (this write's table) is filled with the rows kept.
   */
  async function selectRows(segments: readonly Segment[], seen: IdTable): Promise<{ selection: Selection; duplicates: number }> {
    const fenced = segments.filter((s) => s.fenced && s.rowCount > 0);
    const stored = fenced.length > 0 ? await storedIds(fenced) : new Set<string>();
    for (const s of fenced) s.tailAlreadyStored = stored.has(rowEventId(s, s.rowCount - 1));
    const others = [...inFlight].filter((t) => t !== seen);
    const keep: (Uint8Array | undefined)[] = [];
    let count = 0;
    let duplicates = 0;
    const key = new IdKey();
    const inOther = () => {
      for (const t of others) if (t.hasKey(key)) return true;
      return false;
    };
    for (const s of segments) {
      let mask: Uint8Array | undefined;
      for (let i = 0; i < s.rowCount; i++) {
        key.load(s.body, s.rowStarts[i]);
        const where = !seen.addKey(key) ? 'batch' : deps.recent.hasKey(key) || inOther() ? 'recent'
          : s.fenced && stored.has(rowEventId(s, i)) ? 'stored' : undefined;
        if (where) {
          duplicates++;
          metrics.duplicates.inc({ where });
          // The first duplicate of a segment makes its mask: every row before it was kept.
          mask ??= new Uint8Array(s.rowCount).fill(1, 0, i);
          continue;
        }
        if (mask) mask[i] = 1;
        count++;
      }
      keep.push(mask);
    }
    return { selection: { segments, keep, count }, duplicates };
  }

  async function insert(rows: number, token: string, data: Buffer): Promise<void> {
    const started = performance.now();
    await retrying('insert into events', retry, () => clickhouse.insert('events', data, { dedupToken: token, settings: INSERT_SETTINGS, format: 'RowBinary', columns: EVENT_COLUMNS }));
    metrics.insertSeconds.observe((performance.now() - started) / 1000);
    metrics.batchRows.observe(rows);
  }

  /**
   * ClickHouse refused the INSERT because of a row's data (see isRowRefusal): some row it
   * cannot take although our schema accepted it (none is known since rows are RowBinary built
   * from validated events; this is the safety net). Bisect to find the refused rows (log2(n) rounds for one bad row),
   * insert the rest and return the refused ones as poison: one bad row never blocks a partition.
   */
  async function insertIsolating(rows: readonly RowRef[], token: string, err: unknown): Promise<{ row: RowRef; error: string }[]> {
    if (rows.length === 1) return [{ row: rows[0], error: (err as Error).message }];
    const mid = Math.ceil(rows.length / 2);
    const refused: { row: RowRef; error: string }[] = [];
    for (const half of [rows.slice(0, mid), rows.slice(mid)]) {
      const halfToken = contentToken(`${deps.tokenPrefix}:bisect:${token}`, half.map((r) => rowEventId(r.segment, r.index)));
      try {
        await insert(half.length, halfToken, refsBody(half));
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
    const seen = tableFor(segments.reduce((n, s) => n + s.rowCount, 0));
    inFlight.add(seen);
    try {
      return await writeSelected(segments, seen);
    } finally {
      inFlight.delete(seen);
      spareTables.push(seen);
    }
  }

  async function writeSelected(segments: readonly Segment[], seen: IdTable): Promise<WriteSummary> {
    const { selection, duplicates } = await selectRows(segments, seen);
    const rejects = segments.flatMap((s) => s.rejects);
    if (selection.count > 0) {
      const token = insertToken(deps.tokenPrefix, segments, selectionIds(selection));
      try {
        await insert(selection.count, token, selectionBody(selection));
      } catch (err) {
        if (!isRowRefusal(err)) throw err;
        log.error({ err, rows: selection.count }, 'ClickHouse refused a row of an insert: isolating the refused rows');
        const refused = await insertIsolating(selectedRefs(selection), token, err);
        // What is left in the selection is exactly what ClickHouse stored.
        excludeRows(selection, refused.map((r) => r.row));
        for (const { row, error } of refused) rejects.push(rowAsRejected(row.segment, row.index, RejectReason.InsertRejected, error));
      }
    }
    await recordRejects(rejects, segments[0]?.stream ?? 'events');
    const key = new IdKey();
    forEachSelected(selection, (s, i) => deps.recent.addKey(key.load(s.body, s.rowStarts[i])));
    const inserted = selection.count;
    metrics.rowsWritten.inc(inserted);
    const now = Date.now();
    for (const s of segments) {
      if (Number.isFinite(s.oldestBusTimestamp)) metrics.freshnessSeconds.observe(Math.max(0, now - s.oldestBusTimestamp) / 1000);
    }
    // Stored and recorded: nothing reads these rows' bytes any more.
    for (const s of segments) returnBody(s.storage);
    return { inserted, duplicates, rejected: rejects.length };
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
