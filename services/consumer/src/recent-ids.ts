import { IdKey, IdTable } from './id-table.js';

/**
 * Event ids inserted recently, to leave out a client's retried beacon (same event_id) before
 * it becomes a second raw row. Two generations: when the current one is full it becomes the
 * previous one, so memory stays bounded (2 tables of ≥ 2 × capacity slots, 16 bytes each:
 * ~8 MB for the default 100k) without a per-id timestamp, and an id is remembered for at least
 * `capacity` further inserts. Ids are a row's 16 UUID bytes (IdTable).
 * Only a fast path: ReplacingMergeTree and the statistics dedup by event_id anyway.
 */
export class RecentIds {
  private current: IdTable;
  private previous: IdTable;

  private readonly capacity: number;
  private readonly scratch = new IdKey();

  constructor(capacity: number) {
    this.capacity = Math.max(1, capacity);
    this.current = new IdTable(this.capacity);
    this.previous = new IdTable(this.capacity);
  }

  has(buf: Buffer, at: number): boolean {
    return this.hasKey(this.scratch.load(buf, at));
  }

  add(buf: Buffer, at: number): void {
    this.addKey(this.scratch.load(buf, at));
  }

  hasKey(key: IdKey): boolean {
    return this.current.hasKey(key) || this.previous.hasKey(key);
  }

  addKey(key: IdKey): void {
    if (this.current.size >= this.capacity) {
      // The oldest generation is forgotten and its table reused (no 4 MB allocation per rotation).
      const oldest = this.previous;
      oldest.clear();
      this.previous = this.current;
      this.current = oldest;
    }
    this.current.addKey(key);
  }
}
