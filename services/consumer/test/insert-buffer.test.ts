import t from 'tap';
import { InsertBuffer, type FlushTrigger, type InsertBufferOptions } from '../src/insert-buffer.js';
import type { Segment } from '../src/segment.js';

/** Only the counts matter to the buffer: rows without bytes. */
const seg = (partition: number, n: number): Segment => ({
  stream: 'events', partition, firstOffset: '0', lastOffset: String(n - 1), body: Buffer.alloc(0), storage: Buffer.alloc(0), rowCount: n,
  rowStarts: new Uint32Array(n + 1), rowMessages: new Uint32Array(n), messages: [],
  rejects: [], orders: [], refunds: [], dropped: 0, canonical: 0, oldestBusTimestamp: Date.now(), fenced: false,
});

function buffer(over: Partial<InsertBufferOptions> = {}) {
  const flushes: { trigger: FlushTrigger; partitions: number[] }[] = [];
  const buf = new InsertBuffer({
    maxRows: 100, maxAgeMs: 60_000, minRowsWhenAllWaiting: 10, activeWindowMs: 60_000,
    async write(segments, trigger) { flushes.push({ trigger, partitions: segments.map((s) => s.partition) }); },
    ...over,
  });
  return { buf, flushes };
}

t.test('flushes on size: the handlers resolve only after the write', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const { buf, flushes } = buffer({ minRowsWhenAllWaiting: 1_000, write: async (segments, trigger) => { await gate; flushes.push({ trigger, partitions: segments.map((s) => s.partition) }); } });
  let resolved = 0;
  const a = buf.add(seg(0, 60)).then(() => resolved++);
  const b = buf.add(seg(1, 50)).then(() => resolved++);
  await new Promise((r) => setImmediate(r));
  t.equal(resolved, 0, 'nobody resolves before ClickHouse acknowledged');
  release();
  await Promise.all([a, b]);
  t.same(flushes, [{ trigger: 'size', partitions: [0, 1] }]);
});

t.test('flushes on age when nothing else triggers', async (t) => {
  const { buf, flushes } = buffer({ maxAgeMs: 20, minRowsWhenAllWaiting: 1_000 });
  await buf.add(seg(0, 5));
  t.same(flushes, [{ trigger: 'age', partitions: [0] }]);
});

t.test('flushes early when every active partition is waiting (the buffer cannot grow)', async (t) => {
  const { buf, flushes } = buffer({ maxAgeMs: 60_000 });
  // Only partition 0 is known, and it is waiting: age (60 s) would only add latency.
  await buf.add(seg(0, 20));
  t.same(flushes, [{ trigger: 'all-waiting', partitions: [0] }]);
});

t.test('below the minimum rows, even all-waiting partitions coalesce until the age', async (t) => {
  const { buf, flushes } = buffer({ maxAgeMs: 20, minRowsWhenAllWaiting: 50 });
  await buf.add(seg(0, 5));
  t.same(flushes.map((f) => f.trigger), ['age']);
});

t.test('a backlog (messages already older than the age limit) flushes at once, even below the minimum', async (t) => {
  const { buf, flushes } = buffer({ maxAgeMs: 60_000, minRowsWhenAllWaiting: 1_000 });
  await buf.add({ ...seg(0, 5), oldestBusTimestamp: Date.now() - 120_000 });
  t.same(flushes, [{ trigger: 'all-waiting', partitions: [0] }]);
});

t.test('a partition that has not delivered yet keeps the buffer waiting', async (t) => {
  const { buf, flushes } = buffer({ maxAgeMs: 60_000 });
  await buf.add(seg(0, 20));
  t.same(flushes.map((f) => f.partitions), [[0]], 'alone, since it was the only partition known');
  const b = buf.add(seg(1, 20));
  await new Promise((r) => setImmediate(r));
  t.equal(flushes.length, 1, 'partition 0 is active and not waiting: no flush yet');
  const a = buf.add(seg(0, 20));
  await Promise.all([a, b]);
  t.same(flushes.slice(1), [{ trigger: 'all-waiting', partitions: [1, 0] }]);
});

t.test('a flush due while a write runs starts when it ends, with everything added meanwhile', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const flushes: { trigger: FlushTrigger; partitions: number[] }[] = [];
  const buf = new InsertBuffer({
    maxRows: 10, maxAgeMs: 60_000, minRowsWhenAllWaiting: 1_000, activeWindowMs: 60_000,
    async write(segments, trigger) {
      if (flushes.length === 0) await gate;
      flushes.push({ trigger, partitions: segments.map((s) => s.partition) });
    },
  });
  const adds = [buf.add(seg(0, 10)), buf.add(seg(1, 10)), buf.add(seg(2, 10))];
  await new Promise((r) => setImmediate(r));
  release();
  await Promise.all(adds);
  t.same(flushes, [{ trigger: 'size', partitions: [0] }, { trigger: 'size', partitions: [1, 2] }]);
});

t.test('a failed write rejects every handler of that flush; later flushes still run, in order', async (t) => {
  let n = 0;
  const order: number[] = [];
  const { buf } = buffer({
    maxRows: 10,
    async write(segments) {
      order.push(segments[0].partition);
      if (n++ === 0) throw new Error('refused');
    },
  });
  const a = buf.add(seg(0, 10));
  const b = buf.add(seg(1, 10));
  await t.rejects(a, { message: 'refused' });
  await b;
  t.same(order, [0, 1]);
  await buf.drained();
});

t.test('flushNow writes what is buffered and every later add at once', async (t) => {
  const { buf, flushes } = buffer({ maxAgeMs: 60_000, minRowsWhenAllWaiting: 1_000 });
  const a = buf.add(seg(0, 5));
  buf.flushNow();
  await a;
  await buf.add(seg(1, 5));
  t.same(flushes.map((f) => f.trigger), ['stop', 'stop']);
  t.equal(buf.size, 0);
});

t.test('concurrentWrites: two flushes write at once, a third waits for a free slot', async (t) => {
  const gates: (() => void)[] = [];
  let running = 0;
  let most = 0;
  const { buf, flushes } = buffer({
    maxRows: 10, concurrentWrites: 2,
    write: async (segments, trigger) => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((r) => gates.push(r));
      running--;
      flushes.push({ trigger, partitions: segments.map((s) => s.partition) });
    },
  });
  const adds = [0, 1, 2].map((p) => buf.add(seg(p, 10)));
  await new Promise((r) => setImmediate(r));
  t.equal(gates.length, 2, 'two writes started, the third flush is due but waits');
  gates.shift()!();
  await adds[0];
  await new Promise((r) => setImmediate(r));
  t.equal(gates.length, 2, 'the first write ending let the waiting flush start');
  for (const g of gates.splice(0)) g();
  await Promise.all(adds);
  await buf.drained();
  t.equal(most, 2, 'never more than two at once');
  t.same(flushes.map((f) => f.partitions).sort(), [[0], [1], [2]], 'each segment written once');
});

t.test('a segment whose partition was given away is taken back out before its flush, never after', async (t) => {
  const { buf, flushes } = buffer({ maxAgeMs: 30, minRowsWhenAllWaiting: 1_000 });
  const revoked = new AbortController();
  const kept = buf.add(seg(0, 5));
  const gone = buf.add(seg(1, 5), revoked.signal);
  revoked.abort(new Error('partition revoked'));
  await t.rejects(gone, /partition revoked/, 'its handler learns it was not written');
  t.equal(buf.size, 5, 'its rows no longer wait');
  await kept;
  t.same(flushes, [{ trigger: 'age', partitions: [0] }], 'the flush holds the other partition only');

  const late = new AbortController();
  const flushed = buf.add(seg(2, 5), late.signal);
  await flushed;
  late.abort(new Error('too late'));
  t.same(flushes.at(-1), { trigger: 'age', partitions: [2] }, 'once written, an abandonment changes nothing');
  const already = new AbortController();
  already.abort(new Error('before'));
  await t.rejects(buf.add(seg(3, 5), already.signal), /before/, 'an abandoned delivery is not even taken');
});
