import type { Segment } from './segment.js';

/**
 * The rows of one flush that go into its INSERT: per segment every row (undefined) or a mask.
 * No object per row: a flush is up to 100k rows and this is the common path.
 */
export interface Selection {
  segments: readonly Segment[];
  /** keep[k][i] === 1 when row i of segments[k] is inserted; undefined = all of them. */
  keep: (Uint8Array | undefined)[];
  count: number;
}

/** One row, on the rare paths that need rows one by one (isolating a row ClickHouse refused). */
export interface RowRef {
  segment: Segment;
  index: number;
}

export function forEachSelected(sel: Selection, fn: (segment: Segment, index: number) => void): void {
  sel.segments.forEach((s, k) => {
    const keep = sel.keep[k];
    for (let i = 0; i < s.rowCount; i++) if (keep === undefined || keep[i] === 1) fn(s, i);
  });
}

export function selectedRefs(sel: Selection): RowRef[] {
  const refs: RowRef[] = [];
  forEachSelected(sel, (segment, index) => refs.push({ segment, index }));
  return refs;
}

/** Leaves these rows out of the selection (rows ClickHouse refused, once bisected out). */
export function excludeRows(sel: Selection, refs: readonly RowRef[]): void {
  for (const { segment, index } of refs) {
    const k = sel.segments.indexOf(segment);
    const keep = (sel.keep[k] ??= new Uint8Array(segment.rowCount).fill(1));
    if (keep[index] === 1) {
      keep[index] = 0;
      sel.count--;
    }
  }
}

/** The INSERT body: the segments' bodies as they are when nothing was left out. */
export function selectionBody(sel: Selection): Buffer {
  if (sel.keep.every((k) => k === undefined)) {
    // One segment (a backlog batch, the usual case): its body as is, no copy of ~25 MB.
    return sel.segments.length === 1 ? sel.segments[0].body : Buffer.concat(sel.segments.map((s) => s.body));
  }
  return refsBody(selectedRefs(sel));
}

/** The bytes of these rows, in this order; a run of adjacent rows is copied in one piece. */
export function refsBody(refs: readonly RowRef[]): Buffer {
  let size = 0;
  for (const { segment: s, index: i } of refs) size += s.rowStarts[i + 1] - s.rowStarts[i];
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let r = 0; r < refs.length;) {
    const { segment: s, index: first } = refs[r];
    let last = first;
    while (r + 1 < refs.length && refs[r + 1].segment === s && refs[r + 1].index === last + 1) { r++; last++; }
    r++;
    at += s.body.copy(out, at, s.rowStarts[first], s.rowStarts[last + 1]);
  }
  return out;
}

/** The selected rows' event ids, 16 bytes each, in order (what the insert token hashes). */
export function selectionIds(sel: Selection): Buffer {
  const out = Buffer.allocUnsafe(sel.count * 16);
  let at = 0;
  forEachSelected(sel, (s, i) => {
    const from = s.rowStarts[i];
    for (let b = 0; b < 16; b++) out[at++] = s.body[from + b];
  });
  return out;
}
