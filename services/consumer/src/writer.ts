import type { EventBus } from '@chatlytics/bus';
import { createTokenIdStore, type ClickHouseEngine, type TokenIdStore } from '@chatlytics/clickhouse';
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
import { createTokenMap } from './token-map.js';
import { NO_INTENTS, type InsertIntents } from './insert-intents.js';

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
  /** Where new token ids are stored (default: `token_ids`). */
  tokenIds?: TokenIdStore;
  /** Where inserts in progress are recorded (default: nowhere; consumer.ts records them with the embedded ClickHouse). */
  intents?: InsertIntents;
}

export interface WriteSummary {
  inserted: number;
  duplicates: number;
  rejected: number;
}

/**
 * One flush of segments, in five parts: the new token ids its rows carry stored (token-map.ts,
 * in the order flushes start), the stored rows of fenced segments looked up (fencing.ts), the
 * duplicates left out (duplicate-filter.ts), the rest inserted at once (events-insert.ts), then
 * the flush made final (flush-commit.ts).
 */
export function createWriter(deps: WriterDeps) {
  const storeTokenIds = createTokenMap({ store: deps.tokenIds ?? createTokenIdStore(deps.clickhouse), retry: deps.retry, tokenPrefix: deps.tokenPrefix });
  const storedOfFenced = createFencedLookup(deps);
  const duplicates = createDuplicateFilter(deps);
  const insertSelection = createEventsInsert({ ...deps, intents: deps.intents ?? NO_INTENTS });
  const commit = createFlushCommit(deps);

  async function write(input: readonly Segment[], trigger: FlushTrigger): Promise<WriteSummary> {
    deps.metrics.flushes.inc({ trigger });
    const segments = [...input].sort(compareSegments);
    // Taken now, before any await: the stores of token ids follow the order flushes start in.
    const idsStored = storeTokenIds(segments);
    idsStored.catch(() => undefined);
    return duplicates.during(segments, async (seen) => {
      const stored = await storedOfFenced(segments);
      await idsStored;
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
