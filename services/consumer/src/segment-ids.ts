import {
  consumerIdSlot, createTokenIdStore, KnownTokenIds, TokenIdAllocator, type ClickHouseEngine, type TokenIdStore, type TokenRef,
} from '@chatlytics/clickhouse';
import { ROW_TAIL_BYTES, readString, rowTokenBytes } from './row-binary.js';
import type { Segment } from './segment.js';

type PartitionRef = { stream: string; partition: number };

/** A row's token as a TokenRef: its key is the row's bytes of token and chatbot; the texts are read only if asked. */
class RowTokenRef implements TokenRef {
  constructor(private readonly buf: Buffer, private readonly tokenAt: number, private readonly chatbotAt: number, readonly key: string) {}
  get token(): string { return readString(this.buf, this.tokenAt); }
  get chatbot(): string { return readString(this.buf, this.chatbotAt); }
}

export interface SegmentIdsDeps {
  clickhouse: ClickHouseEngine;
  /** The numbering slot of a partition's rows (default: the consumer's, ID_SLOTS.consumer + partition). */
  slotOf?: (partition: PartitionRef) => number;
  store?: TokenIdStore;
}

/**
 * Every counted row of a segment gets its token's id (packages/clickhouse/src/token-ids.ts) in
 * its last bytes before the segment joins a flush. One allocator per slot (the consumer's: one
 * per partition): its calls run one after another, in the order the partition's batches arrive,
 * so new tokens are numbered in log order. Bot rows keep 0 (no statistic reads them, so they
 * take no id).
 */
export function createSegmentIds(deps: SegmentIdsDeps) {
  const store = deps.store ?? createTokenIdStore(deps.clickhouse);
  const known = new KnownTokenIds();
  const slotOf = deps.slotOf ?? ((p: PartitionRef) => consumerIdSlot(p.partition));
  // One allocator per slot, never two: a run that numbers every partition in one slot (a
  // replay) has one numbering.
  const allocators = new Map<number, TokenIdAllocator>();
  const allocatorOf = (p: PartitionRef) => {
    const slot = slotOf(p);
    let allocator = allocators.get(slot);
    if (!allocator) {
      allocator = new TokenIdAllocator(store, known, slot);
      allocators.set(slot, allocator);
    }
    return allocator;
  };

  return {
    /** The partition was (re)assigned to this process: its numbering is read again from `token_ids`. */
    reset(p: PartitionRef): Promise<void> {
      return allocators.get(slotOf(p))?.reset() ?? Promise.resolve();
    },

    async assign(segment: Segment): Promise<void> {
      if (segment.rowCount === 0) return;
      const { body, rowStarts } = segment;
      const refs: RowTokenRef[] = [];
      const refOfKey = new Map<string, number>();
      /** Per row, its ref's index; -1 for a bot row. */
      const rowRef = new Int32Array(segment.rowCount);
      for (let i = 0; i < segment.rowCount; i++) {
        const at = rowTokenBytes(body, rowStarts[i]);
        if (at.isBot) { rowRef[i] = -1; continue; }
        const key = body.toString('latin1', at.tokenAt, at.chatbotEnd);
        let r = refOfKey.get(key);
        if (r === undefined) {
          r = refs.length;
          refs.push(new RowTokenRef(body, at.tokenAt, at.chatbotAt, key));
          refOfKey.set(key, r);
        }
        rowRef[i] = r;
      }
      const allocator = allocatorOf(segment);
      const { ids, fresh } = await allocator.assign(refs);
      for (let i = 0; i < segment.rowCount; i++) {
        if (rowRef[i] >= 0) body.writeBigUInt64LE(ids[rowRef[i]], rowStarts[i + 1] - ROW_TAIL_BYTES);
      }
      segment.tokenIds = { allocator, fresh };
    },
  };
}

export type SegmentIds = ReturnType<typeof createSegmentIds>;
