import t from 'tap';
import type { ConsumedBatch } from '@chatlytics/bus';
import { createFencing } from '../src/fencing.js';
import type { Segment } from '../src/segment.js';

const batch = (partition: number, first: number, last: number): ConsumedBatch => ({
  stream: 'events', partition,
  messages: Array.from({ length: last - first + 1 }, (_, i) => ({ partition, offset: String(first + i), key: 'k', value: Buffer.from('x'), timestamp: 0 })),
});
/** What fencing reads of a segment. */
const segmentOf = (b: ConsumedBatch, fenced: boolean, tailAlreadyStored?: boolean) =>
  ({ stream: b.stream, partition: b.partition, lastOffset: b.messages.at(-1)!.offset, fenced, tailAlreadyStored }) as Segment;

/** One batch handed over and written; returns whether it was fenced. */
function pass(f: ReturnType<typeof createFencing>, b: ConsumedBatch, tailAlreadyStored = false): boolean {
  const fenced = f.mustFence(b);
  const s = segmentOf(b, fenced, fenced ? tailAlreadyStored : undefined);
  f.handedOver(s);
  f.written(s);
  return fenced;
}

t.test('the first batch of a partition is fenced; once a fenced batch ends with a new row, the next ones are not', async (t) => {
  const f = createFencing();
  t.equal(pass(f, batch(0, 0, 9)), true, 'first after a start');
  t.equal(pass(f, batch(0, 10, 19)), false, 'continues where the last ended');
  t.equal(pass(f, batch(1, 0, 4)), true, 'each partition on its own');
});

t.test('fencing stays on while fenced batches end with stored rows', async (t) => {
  const f = createFencing();
  t.equal(pass(f, batch(0, 0, 9), true), true);
  t.equal(pass(f, batch(0, 10, 19), true), true, 'the previous owner got further');
  t.equal(pass(f, batch(0, 20, 29), false), true, 'still fenced: its last row was new');
  t.equal(pass(f, batch(0, 30, 39)), false);
});

t.test('a batch that does not start where the last one ended is fenced (a redelivery)', async (t) => {
  const f = createFencing();
  pass(f, batch(0, 0, 9));
  t.equal(pass(f, batch(0, 5, 14)), true);
  t.equal(pass(f, batch(0, 20, 29)), true, 'a gap too');
});

t.test('read-ahead: the expected offset moves at hand-over, before the write', async (t) => {
  const f = createFencing();
  pass(f, batch(0, 0, 9));
  const a = batch(0, 10, 19);
  t.equal(f.mustFence(a), false);
  f.handedOver(segmentOf(a, false));
  t.equal(f.mustFence(batch(0, 20, 29)), false, 'the next batch follows the one still being written');
});

t.test('forget (a failed batch, or a partition assigned anew): its next batch is fenced', async (t) => {
  const f = createFencing();
  pass(f, batch(0, 0, 9));
  pass(f, batch(1, 0, 9));
  f.forget({ stream: 'events', partition: 0 });
  t.equal(pass(f, batch(0, 10, 19)), true);
  t.equal(pass(f, batch(1, 10, 19)), false, 'other partitions are not affected');
});
