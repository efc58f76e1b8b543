/**
 * Sets of event ids held as the 16 bytes each has at the start of its RowBinary row
 * (ClickHouse's UUID layout), in open-addressing tables: no string, no object and no Set
 * entry per id. Why: the duplicate checks ran over every row of every flush with 36-character
 * id strings, and those strings (kept alive until their insert was acknowledged, then in the
 * recent-id generations) were ~2 µs of the JavaScript thread's ~10 per event in
 * bench:pipeline, with the garbage collector's share on top.
 */

/**
 * One id's four words and hash, read from the row once and then probed into every table that
 * is asked (the flush's own, the other in-flight write's, both recent generations): reading
 * and hashing per table was a third of the probing cost.
 */
export class IdKey {
  a = 0;
  b = 0;
  c = 0;
  d = 0;
  /** Never 0: 0 marks an empty slot in a table's tag array. */
  tag = 1;
  nil = false;

  load(buf: Buffer, at: number): this {
    const a = (this.a = buf.readInt32LE(at));
    const b = (this.b = buf.readInt32LE(at + 4));
    const c = (this.c = buf.readInt32LE(at + 8));
    const d = (this.d = buf.readInt32LE(at + 12));
    this.nil = (a | b | c | d) === 0;
    // Every word mixed in: client-supplied ids need not be random in any particular half.
    let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(c, 0x85ebca77) ^ Math.imul(d, 0xc2b2ae3d), 0x27d4eb2f);
    h ^= h >>> 15;
    this.tag = h | 1;
    return this;
  }
}

/**
 * Fixed size: at least twice as many slots as `capacity` (linear probing stays short at
 * ≤ 50 % load); adding beyond capacity is the caller's business (RecentIds rotates).
 *
 * A probe reads a 4-byte tag per slot and the 16 id bytes only when the tag matches. Why:
 * with 50k-row flushes the tables are MBs (16 bytes a slot), and a new id — nearly every row —
 * misses in four of them; the misses were 18 % of the JavaScript thread in bench:pipeline.
 * Tags make the probed memory a quarter of that, and clearing for reuse touches only them.
 */
export class IdTable {
  private readonly tags: Int32Array;
  /** Four 32-bit words per slot, valid where the slot's tag is non-zero. */
  private readonly words: Int32Array;
  /** The nil UUID (all zero bytes) is kept aside, like any id but without a slot. */
  private hasNil = false;
  private readonly mask: number;
  private readonly scratch = new IdKey();
  size = 0;

  constructor(readonly capacity: number) {
    let slots = 16;
    while (slots < capacity * 2) slots *= 2;
    this.tags = new Int32Array(slots);
    this.words = new Int32Array(slots * 4);
    this.mask = slots - 1;
  }

  /** Empties the table for reuse. */
  clear(): void {
    this.tags.fill(0);
    this.hasNil = false;
    this.size = 0;
  }

  /** Adds the id at buf[at, at + 16); false when it was there already. */
  add(buf: Buffer, at: number): boolean {
    return this.addKey(this.scratch.load(buf, at));
  }

  has(buf: Buffer, at: number): boolean {
    return this.hasKey(this.scratch.load(buf, at));
  }

  /** Adds the key's id; false when it was there already. */
  addKey(key: IdKey): boolean {
    return this.probe(key, true);
  }

  hasKey(key: IdKey): boolean {
    return !this.probe(key, false);
  }

  /** True when the id was absent (and is now present if `insert`). */
  private probe(key: IdKey, insert: boolean): boolean {
    if (key.nil) {
      if (this.hasNil) return false;
      if (insert) { this.hasNil = true; this.size++; }
      return true;
    }
    const { tags, words, mask } = this;
    const tag = key.tag;
    for (let slot = tag & mask; ; slot = (slot + 1) & mask) {
      const t = tags[slot];
      if (t === 0) {
        if (insert) {
          const w = slot * 4;
          words[w] = key.a; words[w + 1] = key.b; words[w + 2] = key.c; words[w + 3] = key.d;
          tags[slot] = tag;
          this.size++;
        }
        return true;
      }
      if (t === tag) {
        const w = slot * 4;
        if (words[w] === key.a && words[w + 1] === key.b && words[w + 2] === key.c && words[w + 3] === key.d) return false;
      }
    }
  }
}
