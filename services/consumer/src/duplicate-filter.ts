import { IdKey, IdTable } from './id-table.js';
import type { ConsumerMetrics } from './metrics.js';
import type { RecentIds } from './recent-ids.js';
import type { Selection } from './row-selection.js';
import { rowEventId, type Segment } from './segment.js';

export interface DuplicateFilterDeps {
  recent: RecentIds;
  metrics: Pick<ConsumerMetrics, 'duplicates'>;
}

/**
 * Which rows of a flush go into its INSERT: every row whose event id is not already in this
 * insert, in a concurrent one, among the ids inserted recently, or (fenced segments) stored.
 */
export function createDuplicateFilter(deps: DuplicateFilterDeps) {
  /**
   * Per write in progress, the ids it is inserting (its own duplicate check, and the other
   * concurrent write's: a retried beacon split across two in-flight flushes is still caught).
   * Spare tables are reused: clearing costs far less than allocating (body-pool.ts says why).
   */
  const inFlight = new Set<IdTable>();
  const spareTables: IdTable[] = [];
  function tableFor(rows: number): IdTable {
    const spare = spareTables.pop();
    // Made again when a flush is bigger, or far smaller (clearing a backlog-sized table for
    // each small live flush is waste).
    if (spare && spare.capacity >= rows && spare.capacity <= 8 * Math.max(rows, 1024)) {
      spare.clear();
      return spare;
    }
    return new IdTable(Math.max(rows, 1024));
  }

  /** Runs one write with its own table of ids, seen by the other writes until it ends. */
  async function during<T>(segments: readonly Segment[], write: (seen: IdTable) => Promise<T>): Promise<T> {
    const seen = tableFor(segments.reduce((n, s) => n + s.rowCount, 0));
    inFlight.add(seen);
    try {
      return await write(seen);
    } finally {
      inFlight.delete(seen);
      spareTables.push(seen);
    }
  }

  /** The rows to insert; `seen` (this write's table) is filled with the rows kept. */
  function select(segments: readonly Segment[], seen: IdTable, stored: ReadonlySet<string>): { selection: Selection; duplicates: number } {
    const others = [...inFlight].filter((t) => t !== seen);
    const keep: (Uint8Array | undefined)[] = [];
    let count = 0;
    let duplicates = 0;
    const key = new IdKey();
    const inOther = () => {
      for (const t of others) if (t.hasKey(key)) return true;
      return false;
    };
    for (const s of segments) {
      let mask: Uint8Array | undefined;
      for (let i = 0; i < s.rowCount; i++) {
        key.load(s.body, s.rowStarts[i]);
        const where = !seen.addKey(key) ? 'batch' : deps.recent.hasKey(key) || inOther() ? 'recent'
          : s.fenced && stored.has(rowEventId(s, i)) ? 'stored' : undefined;
        if (where) {
          duplicates++;
          deps.metrics.duplicates.inc({ where });
          // The first duplicate of a segment makes its mask: every row before it was kept.
          mask ??= new Uint8Array(s.rowCount).fill(1, 0, i);
          continue;
        }
        if (mask) mask[i] = 1;
        count++;
      }
      keep.push(mask);
    }
    return { selection: { segments, keep, count }, duplicates };
  }

  return { during, select };
}
