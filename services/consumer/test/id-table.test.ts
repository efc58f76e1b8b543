import t from 'tap';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { IdKey, IdTable } from '../src/id-table.js';
import { RecentIds } from '../src/recent-ids.js';
import { RowWriter, rowReceivedAtMs, uuidText, encodeEventRow } from '../src/row-binary.js';
import { storedEvent } from './events.js';

/** An id as a row holds it: 16 bytes at some offset of a bigger buffer. */
function row(id: string, offset = 3): Buffer {
  const w = new RowWriter(64);
  w.pos = offset;
  w.uuid(id);
  return w.buf;
}

t.test('IdTable answers like a Set of the id texts', async (t) => {
  // Few distinct ids, many operations: repeats are the point; ids share words on purpose.
  const word = fc.constantFrom('00000000', 'ffffffff', '12345678', 'deadbeef');
  const id = fc.tuple(word, word, word, word).map(([a, b, c, d]) => `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${d}`);
  fc.assert(fc.property(fc.array(fc.tuple(fc.boolean(), id), { maxLength: 300 }), (ops) => {
    const table = new IdTable(300);
    const set = new Set<string>();
    for (const [add, x] of ops) {
      const buf = row(x);
      if (add) {
        if (table.add(buf, 3) !== !set.has(x)) return false;
        set.add(x);
      } else if (table.has(buf, 3) !== set.has(x)) return false;
    }
    return table.size === set.size;
  }), { numRuns: 300 });
});

t.test('ids whose hashes collide are told apart by their bytes', async (t) => {
  // Hand-made keys: same tag (so the same slot chain), different words.
  const key = (a: number, b: number) => Object.assign(new IdKey(), { a, b, c: 7, d: 9, tag: 0x55, nil: false });
  const table = new IdTable(8);
  t.ok(table.addKey(key(1, 2)));
  t.notOk(table.hasKey(key(1, 3)), 'one word differs: not found, although the tag matches');
  t.ok(table.addKey(key(1, 3)), 'and it takes the next slot');
  t.ok(table.hasKey(key(1, 2)) && table.hasKey(key(1, 3)));
  t.notOk(table.addKey(key(1, 3)));
  t.equal(table.size, 2);
  table.clear();
  t.notOk(table.hasKey(key(1, 2)), 'clear empties it (the tags decide, stale words are ignored)');
  t.ok(table.addKey(key(1, 3)));
  t.equal(table.size, 1);
});

t.test('one key probed into several tables answers like a Set per table', async (t) => {
  fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.boolean(), fc.integer({ min: 0, max: 40 })), { maxLength: 400 }), (ops) => {
    const ids = Array.from({ length: 41 }, (_, i) => `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`);
    const tables = [new IdTable(64), new IdTable(64), new IdTable(64)];
    const sets = [new Set<string>(), new Set<string>(), new Set<string>()];
    const key = new IdKey();
    for (const [which, add, i] of ops) {
      key.load(row(ids[i]), 3);
      if (add) {
        if (tables[which].addKey(key) !== !sets[which].has(ids[i])) return false;
        sets[which].add(ids[i]);
      } else if (tables.some((tb, k) => tb.hasKey(key) !== sets[k].has(ids[i]))) return false;
    }
    return true;
  }), { numRuns: 200 });
});

t.test('the nil UUID is an id like any other', async (t) => {
  const table = new IdTable(4);
  const nil = row('00000000-0000-0000-0000-000000000000');
  t.notOk(table.has(nil, 3));
  t.ok(table.add(nil, 3));
  t.ok(table.has(nil, 3));
  t.notOk(table.add(nil, 3), 'a second add finds it');
});

t.test('filled to capacity, every id is still found', async (t) => {
  const ids = Array.from({ length: 5000 }, () => randomUUID());
  const table = new IdTable(ids.length);
  for (const id of ids) table.add(row(id), 3);
  t.equal(table.size, ids.length);
  t.ok(ids.every((id) => table.has(row(id), 3)));
  t.notOk(table.has(row(randomUUID()), 3));
});

t.test('RecentIds remembers an id for at least `capacity` further inserts, and forgets it in time', async (t) => {
  const recent = new RecentIds(100);
  const first = randomUUID();
  recent.add(row(first), 3);
  for (let i = 0; i < 100; i++) recent.add(row(randomUUID()), 3);
  t.ok(recent.has(row(first), 3), 'still there after capacity more');
  for (let i = 0; i < 200; i++) recent.add(row(randomUUID()), 3);
  t.notOk(recent.has(row(first), 3), 'gone after two generations: memory stays bounded');
});

t.test('a row gives back its id and received_at', async (t) => {
  const e = storedEvent(3);
  const w = new RowWriter(16);
  w.u8(7);
  encodeEventRow(w, { ...e, event: 'x'.repeat(200) });
  t.equal(uuidText(w.buf, 1), e.event_id.toLowerCase());
  t.equal(rowReceivedAtMs(w.buf, 1), Date.parse(`${e.received_at.replace(' ', 'T')}Z`), 'a two-byte length on the way is skipped right');
  const upper = randomUUID().toUpperCase();
  t.equal(uuidText(row(upper), 3), upper.toLowerCase(), 'text ids come back in lower case, as ClickHouse returns them');
});
