import type { ConsumedBatch } from '@chatlytics/bus';
import { runSteps, type PipelineRow } from './steps.js';
import { RowWriter, encodeEventRow } from './row-binary.js';

/** A row inside a segment: its insert line lives in the segment's body (off the JS heap). */
export interface SegmentRow extends Omit<PipelineRow, 'event'> {
  /** The segment's body and where this row's RowBinary bytes are in it (no per-row Buffer view). */
  body: Buffer;
  start: number;
  end: number;
}
import type { RejectReason } from './errors.js';

/** A poison message, kept whole for the dead-letter stream and `events_rejected`. */
export interface RejectedMessage {
  reason: RejectReason;
  error: string;
  payload: Buffer;
  key: string | null;
  partition: number;
  offset: string;
  busTimestamp: number;
}

/**
 * One bus batch after the per-message steps. A segment is never split across inserts:
 * its rows land in exactly one INSERT (see dedup-token.ts for why that matters).
 */
export interface Segment {
  stream: ConsumedBatch['stream'];
  partition: number;
  firstOffset: string;
  lastOffset: string;
  rows: SegmentRow[];
  /** Every row's line, in order: the segment's part of the INSERT body as one piece. */
  body: Buffer;
  rejects: RejectedMessage[];
  dropped: number;
  /** When the bus accepted the segment's oldest message (ms); Infinity when it has none. */
  oldestBusTimestamp: number;
  /**
   * Rows of this segment may already be in ClickHouse (a redelivery after a crash or a
   * rebalance): the writer looks their event ids up before inserting.
   */
  fenced: boolean;
  /** Set by the writer: the segment's last row was already stored, so the next one may be too. */
  tailAlreadyStored?: boolean;
}

const EMPTY = Buffer.alloc(0);

export function toSegment(batch: ConsumedBatch, fenced: boolean): Segment {
  const rows: SegmentRow[] = [];
  const rejects: RejectedMessage[] = [];
  let dropped = 0;
  let oldestBusTimestamp = Infinity;
  // The rows go straight into one Buffer per segment, as RowBinary: 20k row strings (or
  // parsed events) kept alive until the insert is acknowledged would be promoted to V8's old
  // generation and cost a major GC each batch (bench:pipeline's profile: GC was the largest
  // single item). RowBinary is smaller than the JSON it came from, so the bus bytes are a
  // good first size.
  const writer = new RowWriter(batch.messages.reduce((n, m) => n + m.value.length, 0));
  const bounds: number[] = [];
  for (const message of batch.messages) {
    if (message.timestamp < oldestBusTimestamp) oldestBusTimestamp = message.timestamp;
    const result = runSteps(message);
    if (result.kind === 'ok') {
      const r = result.value;
      bounds.push(writer.pos);
      encodeEventRow(writer, r.event);
      // One literal with every field: the row object keeps one shape (no properties added later).
      rows.push({
        eventId: r.eventId, receivedAt: r.receivedAt, payload: r.payload, busTimestamp: r.busTimestamp,
        partition: r.partition, offset: r.offset, key: r.key, body: EMPTY, start: 0, end: 0,
      });
    } else if (result.kind === 'drop') dropped++;
    else {
      rejects.push({
        reason: result.reason, error: result.error, payload: message.value, key: message.key,
        partition: batch.partition, offset: message.offset, busTimestamp: message.timestamp,
      });
    }
  }
  const body = writer.bytes();
  bounds.push(body.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    row.body = body;
    row.start = bounds[i];
    row.end = bounds[i + 1];
  }
  return {
    stream: batch.stream,
    partition: batch.partition,
    firstOffset: batch.messages[0]?.offset ?? '-1',
    lastOffset: batch.messages.at(-1)?.offset ?? '-1',
    rows, body, rejects, dropped, oldestBusTimestamp, fenced,
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
