import { createHash, randomBytes } from 'node:crypto';
import { createTokenIdStore, KnownTokenIds, TokenIdAllocator, type TokenIdStore, type TokenRef } from './token-ids.js';
import type { ClickHouseEngine } from './types.js';

/**
 * What every writer of events sets on its inserts into `events_input_v2`: each table the
 * views feed takes from a retried insert only the block it does not have yet (migration 0160).
 */
export const EVENT_INSERT_SETTINGS = { deduplicate_blocks_in_dependent_materialized_views: 1 } as const;

/** A stored event as JSON (packages/events StoredEvent): the writer reads only these fields. */
export interface EventRow {
  chatbot_id: string;
  token: string;
  is_bot?: boolean;
  [column: string]: unknown;
}

/**
 * An insert's key (`events.insert_key`, never 0): the view's look-up of earlier copies leaves
 * out the rows of the same insert, so a retried insert computes the same rows. From the insert
 * token when there is one (the retry carries it), else random.
 */
export function insertKeyOf(dedupToken: string | undefined): bigint {
  const bytes = dedupToken === undefined ? randomBytes(8) : createHash('sha256').update(dedupToken).digest().subarray(0, 8);
  const key = bytes.readBigUInt64LE(0);
  return key === 0n ? 1n : key;
}

export const tokenRefOf = (chatbot: string, token: string): TokenRef => ({ key: `${chatbot.length}:${chatbot}${token}`, chatbot, token });

export interface EventRowsWriter {
  /**
   * Inserts the rows with their token ids: the ids of new tokens are stored in `token_ids`
   * first, then the rows (clickhouse/README.md, "Token ids").
   */
  write(rows: readonly EventRow[], opts?: { dedupToken?: string }): Promise<void>;
}

/**
 * A writer of JSON event rows outside the bus (tests, benchmarks, repair tools): one slot of its
 * own (`slot`, from ID_SLOTS.runs up, never shared with a writer running at the same time).
 */
export function createEventRowsWriter(clickhouse: ClickHouseEngine, opts: { slot: number; store?: TokenIdStore }): EventRowsWriter {
  const store = opts.store ?? createTokenIdStore(clickhouse);
  const allocator = new TokenIdAllocator(store, new KnownTokenIds(), opts.slot);
  return {
    async write(rows, { dedupToken } = {}) {
      const counted = rows.filter((r) => r.is_bot !== true);
      const { ids, fresh } = await allocator.assign(counted.map((r) => tokenRefOf(r.chatbot_id, r.token)));
      if (fresh.length > 0) {
        await store.insert(fresh, { dedupToken: dedupToken === undefined ? undefined : `${dedupToken}:token_ids` });
        allocator.confirm(fresh);
      }
      const byRow = new Map<EventRow, bigint>(counted.map((r, i) => [r, ids[i]]));
      const insertKey = insertKeyOf(dedupToken).toString();
      const body = rows.map((r) => ({ ...r, token_id: (byRow.get(r) ?? 0n).toString(), insert_key: insertKey }));
      await clickhouse.insert('events_input_v2', body, { dedupToken, settings: EVENT_INSERT_SETTINGS });
    },
  };
}
