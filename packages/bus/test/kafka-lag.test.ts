import t from 'tap';
import { oldestUncommittedAt, type PartitionPosition } from '../src/kafka/lag.js';

// The group's oldest uncommitted message, found through the broker's time index alone. A model
// partition: message i has timestamp times[i]; offsetsForTime answers as a broker does (the
// first offset with a timestamp >= the time, the end when there is none).
function model(partitions: number[][]) {
  let lookups = 0;
  return {
    get lookups() { return lookups; },
    offsetsForTime: async (time: number) => {
      lookups++;
      return new Map(partitions.map((times, p) => {
        const i = times.findIndex((ts) => ts >= time);
        return [p, BigInt(i < 0 ? times.length : i)];
      }));
    },
  };
}
const pos = (partition: number, next: number, high: number): PartitionPosition => ({ partition, next: BigInt(next), high: BigInt(high) });
const now = 1_800_000_000_000;

t.test('nothing uncommitted: null, without a lookup', async (t) => {
  const m = model([[now - 5000]]);
  t.equal(await oldestUncommittedAt([pos(0, 1, 1)], m.offsetsForTime, now), null);
  t.equal(m.lookups, 0);
});

t.test('the oldest uncommitted message across partitions, within 1 s or 1 % of its age', async (t) => {
  for (const ageS of [0.3, 7, 61, 3 * 3600, 6 * 24 * 3600]) {
    // Partition 0 has committed everything; partition 1 waits at offset 2 (the oldest); partition 2 at offset 1, younger.
    const oldest = now - ageS * 1000;
    const m = model([
      [now - 9e8, now - 8e8],
      [oldest - 5000, oldest - 1000, oldest, oldest + 10, now - 1],
      [oldest - 3000, oldest + ageS * 500, now],
    ]);
    const found = await oldestUncommittedAt([pos(0, 2, 2), pos(1, 2, 5), pos(2, 1, 3)], m.offsetsForTime, now);
    t.ok(found !== null && found <= oldest && oldest - found <= Math.max(1000, ageS * 10), `age ${ageS} s: found ${(now - found!) / 1000} s (${m.lookups} lookups)`);
    t.ok(m.lookups <= 2 * Math.log2(Math.max(2, ageS)) + 12, 'a logarithmic number of lookups');
  }
});

t.test('a message stamped after now (producer clock ahead) counts as 0 s old', async (t) => {
  const m = model([[now + 5000]]);
  t.equal(await oldestUncommittedAt([pos(0, 0, 1)], m.offsetsForTime, now), now);
});
