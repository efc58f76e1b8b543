import type { ConsumedBatch, ConsumedMessage } from '@chatlytics/bus';
import { runSteps, type PipelineRow } from './steps.js';
import { RowWriter, encodeEventRow } from './row-binary.js';
import { transcodeCanonicalEvent } from './canonical-transcode.js';
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
}

const EMPTY = Buffer.alloc(0);

/**
 * decode → validate → enrich for every message of a batch, each accepted event encoded as
 * RowBinary straight into one Buffer: 20k row strings (or parsed events) kept alive until the
 * insert is acknowledged would be promoted to V8's old generation and cost a major GC each
 * batch (bench:pipeline's profile: GC was the largest single item). RowBinary is smaller than
 * the JSON it came from, so the bus bytes are a good first size.
 */
export function toSegment(batch: ConsumedBatch, fenced: boolean): Segment {
  const writer = new RowWriter(batch.messages.reduce((n, m) => n + m.value.length, 0));
  const rows: SegmentRow[] = [];
  const rejects: RejectedMessage[] = [];
  let dropped = 0;
  let canonical = 0;
  let oldestBusTimestamp = Infinity;
  const reject = (message: ConsumedMessage, reason: RejectReason, error: string) => rejects.push({
    reason, error, payload: message.value, key: message.key,
    partition: batch.partition, offset: message.offset, busTimestamp: message.timestamp,
  });
  // One literal with every field (the body is set below): the row objects keep one shape.
  const accept = (message: ConsumedMessage, eventId: string, receivedAt: string, start: number) => rows.push({
    eventId, receivedAt, payload: message.value, busTimestamp: message.timestamp,
    partition: message.partition, offset: message.offset, key: message.key, body: EMPTY, start, end: writer.pos,
  });
  for (const message of batch.messages) {
    if (message.timestamp < oldestBusTimestamp) oldestBusTimestamp = message.timestamp;
    // The fast path first: what the ingest wrote, byte for byte, needs no parse (canonical-transcode.ts).
    const at = writer.pos;
    let fast;
    try {
      fast = transcodeCanonicalEvent(message.value, writer);
    } catch {
      // A bug there must not stall the partition: the general path below decides instead.
      writer.pos = at;
    }
    if (fast) {
      canonical++;
      accept(message, fast.eventId, fast.receivedAt, at);
      continue;
    }
    const result = runSteps(message);
    if (result.kind === 'drop') {
      dropped++;
      continue;
    }
    if (result.kind === 'dead-letter') {
      reject(message, result.reason, result.error);
      continue;
    }
    const r = result.value;
    const start = writer.pos;
    try {
      encodeEventRow(writer, r.event);
    } catch (err) {
      // A validated event the encoder cannot write is a bug, not a reason to stall the partition.
      writer.pos = start;
      reject(message, RejectReason.Internal, (err as Error).message);
      continue;
    }
    accept(message, r.eventId, r.receivedAt, start);
  }
  // The writer may have moved to a bigger Buffer: the rows point into the final one.
  const body = writer.bytes();
  for (const row of rows) row.body = body;
  return {
    stream: batch.stream,
    partition: batch.partition,
    firstOffset: batch.messages[0]?.offset ?? '-1',
    lastOffset: batch.messages.at(-1)?.offset ?? '-1',
    rows, body, rejects, dropped, canonical, oldestBusTimestamp, fenced,
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
