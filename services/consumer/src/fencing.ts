import type { ConsumedBatch } from '@chatlytics/bus';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { RetryContext } from './retry.js';
import { rowEventId, segmentKey, type Segment } from './segment.js';
import { createStoredIdLookup } from './stored-ids.js';

type PartitionRef = { stream: string; partition: number };

/**
 * Which batches may be a redelivery, per partition: the offset its next batch should start at,
 * and whether batches must still be fenced. A batch is trusted (not fenced) only when it
 * starts exactly where the previous batch this process was handed ends AND fencing is off.
 * Fencing is on after a start (a crash or a rebalance may have left rows inserted but never
 * committed), after any failed batch, and while fenced batches keep finding their last row
 * already stored (the previous owner got further than the committed offset). It goes off when
 * a fenced batch's last row was not stored yet: everything after it is new. The bus reads
 * ahead (the next batch is handed over before this one is written), so the expected offset
 * moves at hand-over, not once the batch is written.
 */
export function createFencing() {
  const partitions = new Map<string, { expected: bigint; fencing: boolean }>();
  return {
    /** Whether this batch (not empty) must be fenced: its rows looked up before they are inserted. */
    mustFence(batch: ConsumedBatch): boolean {
      const state = partitions.get(segmentKey(batch));
      return state === undefined || state.fencing || BigInt(batch.messages[0].offset) !== state.expected;
    },
    /** The batch became this segment and is on its way to ClickHouse: the next one should follow it. */
    handedOver(segment: Segment): void {
      const key = segmentKey(segment);
      partitions.set(key, { expected: BigInt(segment.lastOffset) + 1n, fencing: partitions.get(key)?.fencing ?? true });
    },
    /** The segment's rows are stored; a fenced one whose last row was new ends the fencing. */
    written(segment: Segment): void {
      const state = partitions.get(segmentKey(segment));
      if (segment.fenced && state) state.fencing = segment.tailAlreadyStored === true;
    },
    /**
     * The partition's batch failed, or the partition was (re)assigned to this process: its
     * next batch is fenced, whatever offset it starts at.
     */
    forget(partition: PartitionRef): void {
      partitions.delete(segmentKey(partition));
    },
  };
}

export type Fencing = ReturnType<typeof createFencing>;

/**
 * The event ids of a flush's fenced segments that are already in `events` (stored-ids.ts).
 * Marks each fenced segment whose last row was among them (`tailAlreadyStored`): the
 * partition's next batch may then hold stored rows too.
 */
export function createFencedLookup(deps: { clickhouse: ClickHouseEngine; retry: RetryContext }) {
  const storedIds = createStoredIdLookup(deps);
  return async function storedOfFenced(segments: readonly Segment[]): Promise<Set<string>> {
    const fenced = segments.filter((s) => s.fenced && s.rowCount > 0);
    const stored = fenced.length > 0 ? await storedIds(fenced) : new Set<string>();
    for (const s of fenced) s.tailAlreadyStored = stored.has(rowEventId(s, s.rowCount - 1));
    return stored;
  };
}
