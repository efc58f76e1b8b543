import t from 'tap';
import fc from 'fast-check';
import { insertToken, contentToken } from '../src/dedup-token.js';
import { compareSegments, type Segment } from '../src/segment.js';

/** The token sees the segments' ranges and the inserted rows' 16-byte ids: ids here are short names padded to 16 bytes. */
type Seg = Segment & { ids: string[] };
const segment = (partition: number, first: number, last: number, ids: string[]): Seg => ({
  stream: 'events', partition, firstOffset: String(first), lastOffset: String(last), body: Buffer.alloc(0), storage: Buffer.alloc(0), rowCount: ids.length,
  rowStarts: new Uint32Array(ids.length + 1), rowMessages: new Uint32Array(ids.length), messages: [],
  rejects: [], orders: [], refunds: [], dropped: 0, canonical: 0, oldestBusTimestamp: Date.now(), fenced: false, ids,
});
const idBytes = (ids: string[]) => Buffer.concat(ids.map((id) => Buffer.from(id.padEnd(16, '.'))));
const tokenOf = (segments: Seg[]) => {
  const sorted = [...segments].sort(compareSegments);
  return insertToken('consumer', sorted, idBytes(sorted.flatMap((s) => s.ids)));
};

t.test('the same batches give the same token whatever order the handlers arrived in', async (t) => {
  const segs = [segment(0, 0, 9, ['a', 'b']), segment(3, 10, 12, ['c']), segment(1, 5, 5, ['d'])];
  fc.assert(fc.property(fc.shuffledSubarray(segs, { minLength: 3, maxLength: 3 }), (order) => tokenOf(order) === tokenOf(segs)));
  t.match(tokenOf(segs), /^[0-9a-f]{64}$/);
});

t.test('any difference in ranges, ids or prefix changes the token', async (t) => {
  const base = tokenOf([segment(0, 0, 9, ['a', 'b'])]);
  t.not(tokenOf([segment(0, 0, 10, ['a', 'b'])]), base, 'longer range');
  t.not(tokenOf([segment(1, 0, 9, ['a', 'b'])]), base, 'other partition');
  t.not(tokenOf([segment(0, 0, 9, ['a', 'c'])]), base, 'same offsets, other events (recreated topic)');
  const s = segment(0, 0, 9, ['a', 'b']);
  t.not(insertToken('replay:1', [s], idBytes(s.ids)), insertToken('consumer', [s], idBytes(s.ids)), 'a replay run never takes the consumer token');
  t.equal(contentToken('p', ['a', 'b']), contentToken('p', ['a', 'b']));
  t.not(contentToken('p', ['ab']), contentToken('p', ['a', 'b']), 'ids are separated');
});

t.test('segments order by stream, partition, then numeric offset (beyond 2^53)', async (t) => {
  const big = segment(0, 0, 0, []);
  big.firstOffset = '9007199254740993';
  const bigger = segment(0, 0, 0, []);
  bigger.firstOffset = '9007199254740995';
  t.ok(compareSegments(big, bigger) < 0);
  t.ok(compareSegments(segment(2, 100, 100, []), segment(10, 1, 1, [])) < 0, 'numeric partitions');
  t.ok(compareSegments(segment(0, 99, 99, []), segment(0, 100, 100, [])) < 0, 'numeric offsets, not text');
});
