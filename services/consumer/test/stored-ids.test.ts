import t, { type Test } from 'tap';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { createStoredIdLookup } from '../src/stored-ids.js';
import { toSegment } from '../src/segment.js';
import { FakeClickHouse } from './fakes.js';
import { events, toMessage } from './events.js';
import { silent, testPipeline } from './helpers.js';
import { migratedChdb, tempDir } from './real-engines.js';
import type { StoredEvent } from '@chatlytics/events';

const retry = { log: silent, backoff: { baseMs: 1, maxMs: 2 }, shouldGiveUp: () => true, onRetry: () => {} };
const segmentOf = (list: StoredEvent[]) =>
  toSegment({ stream: 'events', partition: 0, messages: list.map((e, i) => ({ ...toMessage(e), partition: 0, offset: String(i), timestamp: Date.now() })) }, true, testPipeline());

/** Counts the queries of each kind a lookup makes. */
function counting(ch: ClickHouseEngine) {
  const seen = { range: 0, ids: [] as string[][] };
  const proxy = Object.assign(Object.create(ch) as ClickHouseEngine, {
    query: async (sql: string, params?: Record<string, unknown>) => {
      if (/AS stored/.test(sql)) seen.range++;
      else seen.ids.push(params?.ids as string[]);
      return ch.query(sql, params as never);
    },
  });
  return { proxy, seen };
}

async function scenarios(t: Test, ch: ClickHouseEngine, insertStored: (rows: StoredEvent[]) => Promise<void>) {
  // events(n, from) are 1 ms apart: rows 0..99 of the batch, of which 40..59 are stored.
  const batch = events(100);
  const { proxy, seen } = counting(ch);
  const lookup = createStoredIdLookup({ clickhouse: proxy, retry });

  t.same([...await lookup([segmentOf(batch)])], [], 'nothing stored: nothing found');
  t.same([seen.range, seen.ids.length], [1, 0], 'nothing stored in the range: one range query, no id looked up');

  await insertStored(batch.slice(40, 60));
  seen.range = 0;
  seen.ids.length = 0;
  const found = await lookup([segmentOf(batch)]);
  t.same([...found].sort(), batch.slice(40, 60).map((e) => e.event_id).sort(), 'exactly the stored ids are found');
  t.equal(seen.range, 1);
  t.same(seen.ids.flat().sort(), batch.slice(40, 60).map((e) => e.event_id).sort(), 'only ids received between the first and last stored event are looked up');

  // A stored event outside the batch's range does not make the batch's ids candidates.
  const later = events(10, 1_000);
  seen.ids.length = 0;
  t.same([...await lookup([segmentOf(later)])], []);
  t.equal(seen.ids.length, 0, 'a batch after every stored event: no id lookup');

  // Stored rows in the range that are other events (same times, other ids) are looked up, not found.
  const sameTimes = batch.slice(40, 60).map((e) => ({ ...e, event_id: crypto.randomUUID() }));
  t.same([...await lookup([segmentOf(sameTimes)])], [], 'other events at the same times are not taken for stored');
}

t.test('fake ClickHouse', async (t) => {
  const ch = new FakeClickHouse();
  await scenarios(t, ch, async (rows) => ch.insert('events', rows));
});

t.test('embedded ClickHouse (the real SQL)', async (t) => {
  const tmp = tempDir('stored-ids-');
  const ch = await migratedChdb(tmp.dir);
  t.teardown(async () => { await ch.close(); tmp.remove(); });
  await scenarios(t, ch, async (rows) => ch.insert('events', rows));
});
