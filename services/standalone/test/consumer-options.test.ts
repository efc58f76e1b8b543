import t from 'tap';
import { InsertBuffer, type FlushTrigger } from '../../consumer/src/insert-buffer.js';
import type { Segment } from '../../consumer/src/segment.js';
import { STANDALONE_CONSUMER_OPTIONS } from '../src/standalone-app.js';

/** Only the counts matter to the buffer: rows without bytes (as in the consumer's insert-buffer test). */
const seg = (n: number, oldestBusTimestamp = Date.now()): Segment => ({
  stream: 'events', partition: 0, firstOffset: '0', lastOffset: String(n - 1), body: Buffer.alloc(0), storage: Buffer.alloc(0), rowCount: n,
  rowStarts: new Uint32Array(n + 1), rowMessages: new Uint32Array(n), messages: [],
  rejects: [], orders: [], refunds: [], dropped: 0, canonical: 0, oldestBusTimestamp, fenced: false,
});

function buffer() {
  const flushes: { trigger: FlushTrigger; rows: number; at: number }[] = [];
  const started = Date.now();
  const buf = new InsertBuffer({
    maxRows: 100_000, activeWindowMs: 10_000, ...STANDALONE_CONSUMER_OPTIONS,
    async write(segments, trigger) { flushes.push({ trigger, rows: segments.reduce((n, s) => n + s.rowCount, 0), at: Date.now() - started }); },
  });
  return { buf, flushes };
}

t.test('npm start: live batches of the embedded bus coalesce into inserts of ≥ 10,000 rows', async (t) => {
  const { buf, flushes } = buffer();
  // The embedded bus's one partition is always "all waiting": the consumer defaults would
  // insert each of these 2,500-row batches on its own (a part each for the merges to rewrite).
  const done = [buf.add(seg(2_500)), buf.add(seg(2_500)), buf.add(seg(2_500))];
  await new Promise((r) => setImmediate(r));
  t.same(flushes, [], 'no insert below 10,000 fresh rows');
  done.push(buf.add(seg(2_500)));
  await Promise.all(done);
  t.same(flushes.map((f) => [f.trigger, f.rows]), [['all-waiting', 10_000]]);
});

t.test('npm start: a trickle waits at most 0.75 s (inside the 2 s freshness target)', async (t) => {
  const { buf, flushes } = buffer();
  await buf.add(seg(10));
  t.equal(flushes[0].trigger, 'age');
  t.ok(flushes[0].at >= 650 && flushes[0].at < 1_500, `flushed after ${flushes[0].at} ms`);
});

t.test('npm start: a backlog still flushes at once', async (t) => {
  const { buf, flushes } = buffer();
  await buf.add(seg(500, Date.now() - 5_000));
  t.same(flushes.map((f) => f.trigger), ['all-waiting']);
});
