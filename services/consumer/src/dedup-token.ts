import { createHash } from 'node:crypto';
import type { Segment } from './segment.js';

/**
 * insert_deduplication_token of one INSERT into `events`.
 *
 * What it protects, and what it cannot:
 * - A retried INSERT (a timeout or connection reset after the server already wrote the part)
 *   resends the very same body with the very same token: ClickHouse ignores it
 *   (non_replicated_deduplication_window). The token is derived from the content only, never
 *   from a clock or a counter, so the same flush always yields the same token.
 * - Each bus batch (segment) stays whole inside one INSERT and the segments are sorted by
 *   (stream, partition, first offset) before both the body and the token are built, so the
 *   token does not depend on which partition's handler happened to arrive first. A redelivery
 *   that comes back as the same batches grouped the same way is therefore ignored too.
 * - After a crash between insert and commit the redelivered messages may be cut into batches
 *   differently (the bus fetched more or fewer) and grouped with other partitions differently;
 *   NO token derived from the content of a merged insert can match the first attempt then.
 *   That case is closed by fencing (consumer.ts): a partition batch whose first offset is not
 *   the one this process expects is "fenced", and the writer looks its event ids up in
 *   `events` and leaves out those already stored before inserting.
 * - The token includes the event ids, not only the offsets: a recreated topic (or a wiped
 *   embedded bus) restarts offsets at 0, and an offsets-only token would make ClickHouse
 *   silently drop new events as "duplicates" of old ones still in its deduplication window.
 * - `prefix` tells the consumer from each replay run: a replay must never be taken for the
 *   consumer's original insert (if those rows were lost, the replay is what restores them).
 */
export function insertToken(prefix: string, segments: readonly Segment[], ids: Buffer): string {
  const hash = createHash('sha256');
  // v2: the ids are hashed as their 16 bytes each (v1 joined their text).
  hash.update(`${prefix}/events/v2\n`);
  for (const s of segments) hash.update(`${s.stream}:${s.partition}:${s.firstOffset}-${s.lastOffset}\n`);
  // One update of all the inserted rows' ids (row-selection.ts: selectionIds), fixed width.
  hash.update(ids);
  return hash.digest('hex');
}

/** Token of any other insert (bisected halves, events_rejected): content-derived like the above. */
export function contentToken(prefix: string, ids: Iterable<string>): string {
  const hash = createHash('sha256');
  hash.update(`${prefix}\n`);
  hash.update([...ids].join('\n'));
  return hash.digest('hex');
}
