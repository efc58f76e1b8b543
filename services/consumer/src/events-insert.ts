import { clickhouseTime, EVENT_INSERT_SETTINGS, insertKeyOf, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { isRetriable, type Logger } from '@chatlytics/core';
import { contentToken, insertToken } from './dedup-token.js';
import { RejectReason } from './errors.js';
import type { ConsumerMetrics } from './metrics.js';
import { INSERT_COLUMNS } from './row-binary.js';
import { excludeRows, forEachSelected, refsBody, selectedRefs, selectionBody, selectionIds, type RowRef, type Selection } from './row-selection.js';
import { retrying, type RetryContext } from './retry.js';
import { rowAsRejected, rowEventId, rowReceivedAt, type RejectedMessage } from './segment.js';
import type { InsertIntents } from './insert-intents.js';

/**
 * optimize_on_insert=0: ReplacingMergeTree would otherwise collapse equal keys while writing
 * each part; the consumer already left out duplicate ids (duplicate-filter.ts) and every read
 * is dedup-correct, so that pass would be pure cost. EVENT_INSERT_SETTINGS: a retried insert
 * adds to each aggregate only a block it does not have yet (migration 0160).
 */
const INSERT_SETTINGS = { optimize_on_insert: 0, ...EVENT_INSERT_SETTINGS };

export interface EventsInsertDeps {
  clickhouse: ClickHouseEngine;
  log: Logger;
  metrics: Pick<ConsumerMetrics, 'insertSeconds' | 'batchRows'>;
  retry: RetryContext;
  /** Prefix of every insert token; distinct per replay run so a replay never collides with the consumer. */
  tokenPrefix: string;
  /** Where inserts in progress are recorded (insert-intents.ts). */
  intents: InsertIntents;
}

/**
 * The selected rows of a flush as ONE insert into `events`, with a token derived from their
 * content (dedup-token.ts): an insert retried after a timeout is a no-op in ClickHouse.
 */
export function createEventsInsert(deps: EventsInsertDeps) {
  const { clickhouse, log, metrics, retry } = deps;

  async function insert(rows: number, token: string, data: Buffer): Promise<void> {
    const started = performance.now();
    await retrying('insert into events', retry, () => clickhouse.insert('events_input_v2', data, { dedupToken: token, settings: INSERT_SETTINGS, format: 'RowBinary', columns: INSERT_COLUMNS }));
    metrics.insertSeconds.observe((performance.now() - started) / 1000);
    metrics.batchRows.observe(rows);
  }

  /**
   * ClickHouse refused the INSERT because of a row's data (see isRowRefusal): some row it
   * cannot take although our schema accepted it (none is known since rows are RowBinary built
   * from validated events; this is the safety net). Bisect to find the refused rows (log2(n)
   * rounds for one bad row), insert the rest and return the refused ones: one bad row never
   * blocks a partition.
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

  /** Whether `events` holds any row of the insert with this key: it was applied, at least in part. */
  async function partlyStored(key: bigint, from: number, to: number): Promise<boolean> {
    try {
      const [{ stored }] = await clickhouse.query<{ stored: string | number }>(
        "SELECT count() AS stored FROM events WHERE received_at >= {from:DateTime64(3, 'UTC')} AND received_at <= {to:DateTime64(3, 'UTC')} AND insert_key = {key:UInt64}",
        { from: clickhouseTime(from), to: clickhouseTime(to), key: key.toString() });
      return Number(stored) > 0;
    } catch {
      // Unknown: completing the same insert is safe either way.
      return true;
    }
  }

  /**
   * The insert, and if it failed after `events` took rows of it (a view that failed, a server
   * that went away mid-insert): the same insert again, same rows and token, until it completes.
   * Each table its views feed then takes only the block it is missing (migration 0160), which a
   * redelivered batch could not do: it leaves the stored rows out, and with them what the views
   * that failed never counted.
   */
  async function insertCompleting(rows: number, token: string, data: Buffer, key: bigint, from: number, to: number): Promise<void> {
    try {
      await insert(rows, token, data);
    } catch (err) {
      if (isRowRefusal(err) || !await partlyStored(key, from, to)) throw err;
      log.error({ err, rows }, 'an insert failed after events stored rows of it: the same insert again until it completes');
      await retrying('complete a partly applied insert', { ...retry, retryAll: true }, () => insert(rows, token, data));
    }
  }

  /**
   * Inserts the selection (not empty). Returns the rows ClickHouse refused for good, as poison;
   * they are left out of the selection, which then holds exactly what ClickHouse stored.
   */
  return async function insertSelection(selection: Selection): Promise<RejectedMessage[]> {
    const token = insertToken(deps.tokenPrefix, selection.segments, selectionIds(selection));
    // The insert's key in every row (ROW_TAIL_BYTES' second half): the same on a retry, whose
    // token is the same, so the view computes the same rows (migration 0160).
    const key = insertKeyOf(token);
    let from = Infinity;
    let to = -Infinity;
    forEachSelected(selection, (s, i) => {
      s.body.writeBigUInt64LE(key, s.rowStarts[i + 1] - 8);
      const at = rowReceivedAt(s, i);
      if (at < from) from = at;
      if (at > to) to = at;
    });
    const done = deps.intents.begin({ key: key.toString(), from, to });
    try {
      await insertCompleting(selection.count, token, selectionBody(selection), key, from, to);
      done();
      return [];
    } catch (err) {
      if (!isRowRefusal(err)) throw err;
      log.error({ err, rows: selection.count }, 'ClickHouse refused a row of an insert: isolating the refused rows');
      const refused = await insertIsolating(selectedRefs(selection), token, err);
      done();
      excludeRows(selection, refused.map((r) => r.row));
      return refused.map(({ row, error }) => rowAsRejected(row.segment, row.index, RejectReason.InsertRejected, error));
    }
  };
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
