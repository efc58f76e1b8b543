import t from 'tap';
import { EventQueue, memoryStore, QUEUE_LIMITS, uuidv7 } from '../src/index.js';

const id = (ms: number, n: number) => uuidv7(ms, new Uint8Array(10).fill(n & 0xff));
const all = () => true;
/** Ends the current task as far as the queue can tell: its pending events are written. */
const taskEnd = () => new Promise((r) => setImmediate(r));

t.test('the oldest events are dropped beyond 1,000 and the drops are counted', async (t) => {
  const q = new EventQueue(memoryStore());
  for (let i = 0; i < 1005; i++) q.add(id(1000 + i, 0), `{"n":${i}}`);
  const left = q.scan();
  t.equal(left.length, QUEUE_LIMITS.events);
  t.equal(left[0].body, '{"n":5}', 'the five oldest went');
  t.equal(left.at(-1)!.body, '{"n":1004}');
  t.equal(q.dropped(), 5);
  q.addDropped(-5);
  t.equal(q.dropped(), 0, 'a reported count is subtracted');
  t.equal(q.store.getItem('chatlytics:dropped') ?? null, null, 'no count left (absent)');
});

t.test('the oldest events are dropped beyond 1 MB of characters', async (t) => {
  const q = new EventQueue(memoryStore());
  const big = 'x'.repeat(100_000);
  for (let i = 0; i < 12; i++) q.add(id(1000 + i, 0), `{"p":"${big}","n":${i}}`);
  const left = q.scan();
  t.ok(left.reduce((s, e) => s + e.body.length, 0) <= QUEUE_LIMITS.chars);
  t.equal(left.length, 10);
  t.match(left[0].body, /"n":2}$/);
  t.equal(q.dropped(), 2);
});

t.test('take: oldest first, bounded by count and characters, at least one', async (t) => {
  const q = new EventQueue(memoryStore());
  // One task each: a task's events share a key named by its first id.
  for (let i = 0; i < 30; i++) {
    q.add(id(5000 - i * 10, i), `{"n":${i}}`);
    await taskEnd();
  }
  const batch = q.take(20, 1_000_000, all);
  t.equal(batch.length, 20);
  t.equal(batch[0].body, '{"n":29}', 'the earliest key first, whatever the insertion order');
  t.equal(q.take(100, 20, all).length, 2, 'character bound: {"n":29}{"n":28} is 16, a third would be 24');
  t.equal(q.take(100, 1, all).length, 1, 'one event larger than the bound still goes');
  q.remove(batch);
  t.equal(q.scan().length, 10);
});

t.test('two tabs over one store: concurrent adds and a removal lose nothing', async (t) => {
  const store = memoryStore();
  const a = new EventQueue(store);
  const b = new EventQueue(store);
  for (let i = 0; i < 50; i++) {
    a.add(id(1000 + i, 1), `{"tab":"a","n":${i}}`);
    b.add(id(1000 + i, 2), `{"tab":"b","n":${i}}`);
  }
  await taskEnd();
  const sent = a.take(60, 1e6, all);
  b.add(id(2000, 3), '{"tab":"b","n":50}');
  a.remove(sent);
  const left = b.scan();
  t.equal(left.length, 41, '100 + 1 - 60');
  t.ok(left.some((e) => e.body === '{"tab":"b","n":50}'), 'the event added mid-flush stays');
});

t.test('one task\'s events: one setItem at its end, in order; a read before the end writes them first', async (t) => {
  const store = memoryStore();
  let sets = 0;
  const q = new EventQueue({ ...store, setItem: (k, v) => { sets++; store.setItem(k, v); } });
  for (let i = 0; i < 900; i++) q.add(id(1000 + i, 1), `{"n":${i}}`);
  t.equal(sets, 0, 'nothing written during the task');
  await taskEnd();
  t.equal(sets, 1, '900 events, one write');
  t.same(q.scan().map((e) => e.body), Array.from({ length: 900 }, (_, i) => `{"n":${i}}`));
  q.add(id(3000, 1), '{"n":"late"}');
  t.equal(q.take(2000, 1e7, all).at(-1)!.body, '{"n":"late"}', 'take() sees an event of the running task');
  const sent = q.take(100, 1e7, all);
  q.remove(sent);
  t.equal(q.scan().length, 801, 'a sent part of a key is taken out of it, the rest stays');
  t.equal(q.scan()[0].body, '{"n":100}');
});

t.test('a full storage drops the event and counts it', async (t) => {
  const store = memoryStore();
  const full = { ...store, setItem: (k: string, v: string) => { if (k.startsWith('chatlytics:e:')) throw new Error('QuotaExceededError'); store.setItem(k, v); } };
  const q = new EventQueue(full);
  q.add(id(1, 1), '{}');
  t.equal(q.scan().length, 0);
  t.equal(q.dropped(), 1);
});

t.test('clear removes events and the drop count, nothing else', async (t) => {
  const q = new EventQueue(memoryStore());
  q.store.setItem('other', 'kept');
  q.add(id(1, 1), '{}');
  q.addDropped(3);
  q.clear();
  t.same(q.store.keys(), ['other']);
});
