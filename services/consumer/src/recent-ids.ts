/**
 * Event ids inserted recently, to leave out a client's retried beacon (same event_id) before
 * it becomes a second raw row. Two generations of Sets: when the current one is full it
 * becomes the previous one, so memory stays bounded (≤ 2 × capacity ids) without a per-id
 * timestamp, and an id is remembered for at least `capacity` further inserts.
 * Only a fast path: ReplacingMergeTree and the statistics dedup by event_id anyway.
 */
export class RecentIds {
  private current = new Set<string>();
  private previous = new Set<string>();

  constructor(private readonly capacity: number) {}

  has(id: string): boolean {
    return this.current.has(id) || this.previous.has(id);
  }

  add(id: string): void {
    if (this.current.size >= this.capacity) {
      this.previous = this.current;
      this.current = new Set();
    }
    this.current.add(id);
  }
}
