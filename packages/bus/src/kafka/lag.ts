/** Where the consumer group stands in one partition: the next offset it reads, and the end. */
export interface PartitionPosition { partition: number; next: bigint; high: bigint }

/** Per partition, the first offset whose timestamp is >= the time (the end when there is none). */
export type OffsetsForTime = (time: number) => Promise<Map<number, bigint>>;

/**
 * Bus time of the oldest message the group has not committed, found with the broker's time
 * index alone (an admin client cannot fetch a message): the wanted time T is the largest for
 * which every lagging partition's first offset at or after T is still at or before the group's
 * position. Searched backwards from now in doubling steps, then bisected to 1 s or 1 % of the
 * age, whichever is coarser: about 2·log2(age in s) offset lookups, each for every partition at
 * once. Timestamps are the producer's (ingest's acceptance time), non-decreasing per partition.
 */
export async function oldestUncommittedAt(positions: PartitionPosition[], offsetsForTime: OffsetsForTime, now = Date.now()): Promise<number | null> {
  const lagging = positions.filter((p) => p.high > p.next);
  if (lagging.length === 0) return null;
  const reachedBy = async (time: number) => {
    const offsets = await offsetsForTime(time);
    return lagging.every((p) => (offsets.get(p.partition) ?? p.high) <= p.next);
  };
  if (await reachedBy(now)) return now;
  // hi: a time later than the answer; lo: one at or before it.
  let hi = now;
  let lo = now;
  for (let step = 1000; ; step *= 2) {
    lo = Math.max(0, now - step);
    if (lo === 0 || (await reachedBy(lo))) break;
    hi = lo;
  }
  while (hi - lo > Math.max(1000, (now - lo) / 100)) {
    const mid = Math.floor((lo + hi) / 2);
    if (await reachedBy(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}
