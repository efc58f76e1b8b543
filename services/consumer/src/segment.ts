import type { ConsumedBatch } from '@chatlytics/bus';
import { runSteps, type PipelineRow } from './steps.js';
import { RowWriter, encodeEventRow } from './row-binary.js';
import { RejectReason } from './errors.js';

/** A row inside a segment: its insert line lives in the segment's body (off the JS heap). */
export interface SegmentRow extends Omit<PipelineRow, 'event'> {
  /** The segment's body and where this row's RowBinary bytes are in it (no per-row Buffer view). */
  body: Buffer;
  start: number;
  end: number;
}

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

/**
 * What the per-message steps make of a batch: one Buffer, typed arrays and the two strings
 * per row the writer needs (compact to keep alive until the insert is acknowledged).
 */
export interface EncodedBatch {
  /** Every accepted event as RowBinary, back to back. */
  body: Buffer;
  /** Row i is body[bounds[i], bounds[i + 1]); length rows + 1. */
  bounds: Int32Array;
  /** Row i came from message messageIndex[i]. */
  messageIndex: Int32Array;
  /** Row i's event_id (lower case) and received_at. */
  ids: string[];
  receivedAts: string[];
  rejects: { index: number; reason: RejectReason; error: string }[];
  dropped: number;
}

/** The only parts of a message the steps read. */
export type StepInput = Pick<ConsumedBatch['messages'][number], 'value' | 'timestamp'>;

/**
 * decode → validate → enrich → RowBinary for every message of a batch. The rows go straight
 * into one Buffer: 20k row strings (or parsed events) kept alive until the insert is
 * acknowledged would be promoted to V8's old generation and cost a major GC each batch
 * (bench:pipeline's profile: GC was the largest single item). RowBinary is smaller than the
 * JSON it came from, so the bus bytes are a good first size.
 */
export function encodeBatch(messages: readonly StepInput[]): EncodedBatch {
  const writer = new RowWriter(messages.reduce((n, m) => n + m.value.length, 0));
  const bounds: number[] = [];
  const messageIndex: number[] = [];
  const ids: string[] = [];
  const receivedAts: string[] = [];
  const rejects: EncodedBatch['rejects'] = [];
  let dropped = 0;
  for (let index = 0; index < messages.length; index++) {
    const m = messages[index];
    const result = runSteps({ partition: 0, offset: '', key: null, value: m.value, timestamp: m.timestamp });
    if (result.kind === 'drop') {
      dropped++;
      continue;
    }
    if (result.kind === 'dead-letter') {
      rejects.push({ index, reason: result.reason, error: result.error });
      continue;
    }
    const start = writer.pos;
    try {
      encodeEventRow(writer, result.value.event);
    } catch (err) {
      // A validated event the encoder cannot write is a bug, not a reason to stall the partition.
      writer.pos = start;
      rejects.push({ index, reason: RejectReason.Internal, error: (err as Error).message });
      continue;
    }
    bounds.push(start);
    messageIndex.push(index);
    ids.push(result.value.eventId);
    receivedAts.push(result.value.receivedAt);
  }
  const body = writer.bytes();
  bounds.push(body.length);
  return { body, bounds: Int32Array.from(bounds), messageIndex: Int32Array.from(messageIndex), ids, receivedAts, rejects, dropped };
}

/** The Segment of a batch from its encoded form; rows point back at their messages. */
export function assembleSegment(batch: ConsumedBatch, fenced: boolean, encoded: EncodedBatch): Segment {
  const { messages } = batch;
  const { body, bounds, messageIndex, ids, receivedAts } = encoded;
  const rows: SegmentRow[] = new Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const m = messages[messageIndex[i]];
    rows[i] = {
      eventId: ids[i], receivedAt: receivedAts[i], payload: m.value, busTimestamp: m.timestamp,
      partition: batch.partition, offset: m.offset, key: m.key, body, start: bounds[i], end: bounds[i + 1],
    };
  }
  const rejects: RejectedMessage[] = encoded.rejects.map(({ index, reason, error }) => {
    const m = messages[index];
    return { reason, error, payload: m.value, key: m.key, partition: batch.partition, offset: m.offset, busTimestamp: m.timestamp };
  });
  let oldestBusTimestamp = Infinity;
  for (const m of messages) if (m.timestamp < oldestBusTimestamp) oldestBusTimestamp = m.timestamp;
  return {
    stream: batch.stream,
    partition: batch.partition,
    firstOffset: messages[0]?.offset ?? '-1',
    lastOffset: messages.at(-1)?.offset ?? '-1',
    rows, body, rejects, dropped: encoded.dropped, oldestBusTimestamp, fenced,
  };
}

/** A bus batch → its Segment. */
export function toSegment(batch: ConsumedBatch, fenced: boolean): Segment {
  return assembleSegment(batch, fenced, encodeBatch(batch.messages));
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
