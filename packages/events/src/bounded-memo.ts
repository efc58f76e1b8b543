/**
 * `compute`'s answers remembered per key, at most `maxEntries` of them. Cleared wholesale when
 * full: simpler than an LRU, still a hit for nearly every event of an active visitor (whose
 * address and User-Agent repeat on every event), and a flood of distinct keys costs what no
 * memo would while the memory stays bounded.
 */
export class BoundedMemo<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly compute: (key: string) => V, private readonly maxEntries: number) {}

  get(key: string): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      value = this.compute(key);
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
