/**
 * A set of event ids held as the 16 bytes each has at the start of its RowBinary row
 * (ClickHouse's UUID layout), in one open-addressing table: no string, no object and no Set
 * entry per id. Why: the duplicate checks ran over every row of every flush with 36-character
 * id strings, and those strings (kept alive until their insert was acknowledged, then in the
 * recent-id generations) were ~2 µs of the JavaScript thread's ~10 per event in
 * bench:pipeline, with the garbage collector's share on top.
 *
 * Fixed size: the table has at least twice as many slots as `capacity` (linear probing stays
 * short at ≤ 50 % load); adding beyond capacity is the caller's business (RecentIds rotates).
 */
export class IdTable {
  /** Four 32-bit words per slot; all four zero = empty (one cache line per probe, no side array). */
  private readonly words: Int32Array;
  /** The nil UUID (all zero bytes) cannot be told from an empty slot: it is kept aside. */
  private hasNil = false;
  private readonly mask: number;
  size = 0;

  constructor(readonly capacity: number) {
    let slots = 16;
    while (slots < capacity * 2) slots *= 2;
    this.words = new Int32Array(slots * 4);
    this.mask = slots - 1;
  }

  /** Empties the table for reuse. */
  clear(): void {
    this.words.fill(0);
    this.hasNil = false;
    this.size = 0;
  }

  /** Adds the id at buf[at, at + 16); false when it was there already. */
  add(buf: Buffer, at: number): boolean {
    return this.probe(buf, at, true);
  }

  has(buf: Buffer, at: number): boolean {
    return !this.probe(buf, at, false);
  }

  /** True when the id was absent (and is now present if `insert`). */
  private probe(buf: Buffer, at: number, insert: boolean): boolean {
    const a = buf.readInt32LE(at);
    const b = buf.readInt32LE(at + 4);
    const c = buf.readInt32LE(at + 8);
    const d = buf.readInt32LE(at + 12);
    if ((a | b | c | d) === 0) {
      if (this.hasNil) return false;
      if (insert) { this.hasNil = true; this.size++; }
      return true;
    }
    // Every word mixed in: client-supplied ids need not be random in any particular half.
    let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(c, 0x85ebca77) ^ Math.imul(d, 0xc2b2ae3d), 0x27d4eb2f);
    h ^= h >>> 15;
    const { words, mask } = this;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const w = slot * 4;
      const x = words[w];
      const y = words[w + 1];
      const z = words[w + 2];
      const v = words[w + 3];
      if ((x | y | z | v) === 0) {
        if (insert) {
          words[w] = a; words[w + 1] = b; words[w + 2] = c; words[w + 3] = d;
          this.size++;
        }
        return true;
      }
      if (x === a && y === b && z === c && v === d) return false;
    }
  }
}
