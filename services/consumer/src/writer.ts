import type { EventBus } from '@chatlytics/bus';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Logger } from '@chatlytics/core';
import { createDuplicateFilter } from './duplicate-filter.js';
import { createEventsInsert } from './events-insert.js';
import { createFencedLookup } from './fencing.js';
import { createFlushCommit } from './flush-commit.js';
import type { FlushTrigger } from './insert-buffer.js';
import type { ConsumerMetrics } from './metrics.js';
import type { RecentIds } from './recent-ids.js';
import type { RetryContext } from './retry.js';
import { compareSegments, type Segment } from './segment.js';

export interface WriterDeps {
  clickhouse: ClickHouseEngine;
  bus: Pick<EventBus, 'publishDeadLetter'>;
  log: Logger;
  metrics: ConsumerMetrics;
  recent: RecentIds;
  retry: RetryContext;
  /**
   * Poison found while replaying was already dead-lettered on its first pass (or IS a dead
   * letter): recording it again would only duplicate it.
   */
  recordRejects: boolean;
  /** Prefix of every insert token; distinct per replay run so a replay never collides with the consumer. */
  tokenPrefix: string;
}

export interface WriteSummary {
  inserted: number;
  duplicates: number;
  rejected: number;
}

/**
 * One flush of segments, in four parts: the stored rows of fenced segments looked up
 * (fencing.ts), the duplicates left out (duplicate-filter.ts), the rest inserted at once
 * (events-insert.ts), then the flush made final (flush-commit.ts).
 */
export function createWriter(deps: WriterDeps) {
  const storedOfFenced = createFencedLookup(deps);
  const duplicates = createDuplicateFilter(deps);
  const insertSelection = createEventsInsert(deps);
  const commit = createFlushCommit(deps);

  async function write(input: readonly Segment[], trigger: FlushTrigger): Promise<WriteSummary> {
    deps.metrics.flushes.inc({ trigger });
    const segments = [...input].sort(compareSegments);
    return duplicates.during(segments, async (seen) => {
      const stored = await storedOfFenced(segments);
      const { selection, duplicates: left } = duplicates.select(segments, seen, stored);
      const rejects = segments.flatMap((s) => s.rejects);
      if (selection.count > 0) rejects.push(...await insertSelection(selection));
      await commit(segments, selection, rejects);
      return { inserted: selection.count, duplicates: left, rejected: rejects.length };
    });
  }

  return { write };
}

export type Writer = ReturnType<typeof createWriter>;
