import type { ConsumedBatch, ConsumedMessage } from '@chatlytics/bus';
import type { TokenIdAllocator, TokenIdRow } from '@chatlytics/clickhouse';
import { ROW_TAIL_BYTES, RowWriter, rowReceivedAtMs, uuidText } from './row-binary.js';
import type { StoredOrder, StoredRefund } from '@chatlytics/events';
import type { RejectReason } from './errors.js';
import { takeBody } from './body-pool.js';
import { CANONICAL_STEP } from './canonical-step.js';
import type { MessagePipeline } from './pipeline.js';
import type { Incoming, SetAside } from './step.js';

/** A poison message, kept whole for the dead-letter stream and `events_rejected`. */
export interface RejectedMessage {
  reason: RejectReason;
  error: string;
  /** The step that found it poison (a pipeline step, or `insert` for a row ClickHouse refused). */
  step: string;
  payload: Buffer;
  key: string | null;
  partition: number;
  offset: string;
  busTimestamp: number;
  /** Set for a purchase the ingest set aside: recorded in `events_rejected` only, not dead-lettered. */
  setAside?: SetAside;
}

/**
 * One bus batch after the per-message steps. A segment is never split across inserts:
 * its rows land in exactly one INSERT (see dedup-token.ts for why that matters).
 *
 * Its rows are columns, not objects: the RowBinary bytes in one Buffer and two typed arrays
 * saying where each row starts and which message it came from. A row's event id is its first
 * 16 bytes (ClickHouse's UUID layout), which is what the duplicate checks compare (IdTable);
 * text ids and times are derived from the bytes only on the rare paths that need them
 * (fenced lookups, a refused row). Per-row objects and strings, alive until ClickHouse
 * acknowledged the insert, were what V8's collector spent its time on (bench:pipeline).
 */
export interface Segment {
  stream: ConsumedBatch['stream'];
  partition: number;
  firstOffset: string;
  lastOffset: string;
  /** Every row's RowBinary bytes, in order: the segment's part of the INSERT body. */
  body: Buffer;
  /** The whole Buffer `body` is the start of: returned to body-pool.ts once the rows are stored. */
  storage: Buffer;
  rowCount: number;
  /** Row i is body[rowStarts[i], rowStarts[i + 1]) (rowCount + 1 entries are meaningful). */
  rowStarts: Uint32Array;
  /** Row i came from messages[rowMessages[i]]: its payload, should ClickHouse refuse the row. */
  rowMessages: Uint32Array;
  messages: readonly ConsumedMessage[];
  rejects: RejectedMessage[];
  /** Order states (order-step.ts), rows of `orders`, inserted by the same flush as the rows. */
  orders: StoredOrder[];
  /** Refunds (from the order states, or reported alone), rows of `order_refunds`, inserted by the same flush. */
  refunds: StoredRefund[];
  dropped: number;
  /** Messages the canonical transcoder took; the others went through JSON.parse + the schema. */
  canonical: number;
  /** When the bus accepted the segment's oldest message (ms); Infinity when it has none. */
  oldestBusTimestamp: number;
  /**
   * Rows of this segment may already be in ClickHouse (a redelivery after a crash or a
   * rebalance): the writer looks their event ids up before inserting.
   */
  fenced: boolean;
  /** Set by the writer: the segment's last row was already stored, so the next one may be too. */
  tailAlreadyStored?: boolean;
  /**
   * Set by segment-ids.ts once every row carries its token's id: the ids this segment's rows
   * carry that are not yet confirmed in `token_ids`, stored by the writer before the rows.
   */
  tokenIds?: { allocator: TokenIdAllocator; fresh: TokenIdRow[] };
}

/** Row i's event id, lower case. */
export const rowEventId = (s: Segment, i: number) => uuidText(s.body, s.rowStarts[i]);
/** Row i's received_at, ms. */
export const rowReceivedAt = (s: Segment, i: number) => rowReceivedAtMs(s.body, s.rowStarts[i]);

/** A message as poison: its bytes and origin, for the dead-letter stream and `events_rejected`. */
const asRejected = (m: ConsumedMessage, why: { reason: RejectReason; error: string; step: string; setAside?: SetAside }): RejectedMessage => ({
  reason: why.reason, error: why.error, step: why.step,
  payload: m.value, key: m.key, partition: m.partition, offset: m.offset, busTimestamp: m.timestamp,
  ...(why.setAside ? { setAside: why.setAside } : {}),
});

/** Row i as the poison it becomes when ClickHouse refuses it. */
export const rowAsRejected = (s: Segment, i: number, reason: RejectReason, error: string) =>
  asRejected(s.messages[s.rowMessages[i]], { reason, error, step: 'insert' });

/**
 * Every message of a batch through the pipeline (pipeline.ts), each accepted event a RowBinary
 * row written straight into one Buffer (RowBinary is smaller than the JSON it came from, so the
 * bus bytes are a good first size). A step asking for a retry fails the whole batch: nothing
 * of it is committed, and the bus delivers it again.
 */
export function toSegment(batch: ConsumedBatch, fenced: boolean, pipeline: MessagePipeline): Segment {
  const { messages } = batch;
  const writer = new RowWriter(takeBody(messages.reduce((n, m) => n + m.value.length, 0)));
  const rowStarts = new Uint32Array(messages.length + 1);
  const rowMessages = new Uint32Array(messages.length);
  let rowCount = 0;
  const rejects: RejectedMessage[] = [];
  const orders: StoredOrder[] = [];
  const refunds: StoredRefund[] = [];
  let dropped = 0;
  let canonical = 0;
  let oldestBusTimestamp = Infinity;
  const incoming: Incoming = { message: messages[0], rows: writer };
  try {
    for (let m = 0; m < messages.length; m++) {
      const message = messages[m];
      if (message.timestamp < oldestBusTimestamp) oldestBusTimestamp = message.timestamp;
      const start = writer.pos;
      incoming.message = message;
      const outcome = pipeline.run(incoming);
      if (outcome.kind === 'row') {
        // token_id and insert_key, the last of INSERT_COLUMNS: filled in before the insert.
        writer.ensure(ROW_TAIL_BYTES);
        writer.buf.fill(0, writer.pos, writer.pos + ROW_TAIL_BYTES);
        writer.pos += ROW_TAIL_BYTES;
        if (pipeline.endedBy === CANONICAL_STEP) canonical++;
        rowStarts[rowCount] = start;
        rowMessages[rowCount] = m;
        rowCount++;
      } else if (outcome.kind === 'drop') {
        dropped++;
      } else if (outcome.kind === 'order') {
        if (outcome.order) orders.push(outcome.order);
        refunds.push(...outcome.refunds);
      } else if (outcome.kind === 'dead-letter') {
        rejects.push(asRejected(message, outcome));
      } else {
        throw outcome.error;
      }
    }
  } finally {
    pipeline.report();
  }
  rowStarts[rowCount] = writer.pos;
  return {
    stream: batch.stream,
    partition: batch.partition,
    firstOffset: messages[0]?.offset ?? '-1',
    lastOffset: messages.at(-1)?.offset ?? '-1',
    body: writer.bytes(), storage: writer.buf, rowCount, rowStarts, rowMessages, messages,
    rejects, orders, refunds, dropped, canonical, oldestBusTimestamp, fenced,
  };
}

export const segmentKey = (s: { stream: string; partition: number }) => `${s.stream}:${s.partition}`;

/** Offsets are decimal strings that may exceed 2^53: compare them as BigInt. */
export function compareSegments(a: Segment, b: Segment): number {
  if (a.stream !== b.stream) return a.stream < b.stream ? -1 : 1;
  if (a.partition !== b.partition) return a.partition - b.partition;
  const x = BigInt(a.firstOffset);
  const y = BigInt(b.firstOffset);
  return x < y ? -1 : x > y ? 1 : 0;
}
