import type { ConsumedBatch } from '@chatlytics/bus';
import { runSteps, type PipelineRow } from './steps.js';
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
  rows: PipelineRow[];
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

export function toSegment(batch: ConsumedBatch, fenced: boolean): Segment {
  const rows: PipelineRow[] = [];
  const rejects: RejectedMessage[] = [];
  let dropped = 0;
  let oldestBusTimestamp = Infinity;
  for (const message of batch.messages) {
    if (message.timestamp < oldestBusTimestamp) oldestBusTimestamp = message.timestamp;
    const result = runSteps(message);
    if (result.kind === 'ok') rows.push(result.value);
    else if (result.kind === 'drop') dropped++;
    else {
      rejects.push({
        reason: result.reason, error: result.error, payload: message.value, key: message.key,
        partition: batch.partition, offset: message.offset, busTimestamp: message.timestamp,
      });
    }
  }
  return {
    stream: batch.stream,
    partition: batch.partition,
    firstOffset: batch.messages[0]?.offset ?? '-1',
    lastOffset: batch.messages.at(-1)?.offset ?? '-1',
    rows, rejects, dropped, oldestBusTimestamp, fenced,
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
