import t from 'tap';
import { createMetricsRegistry } from '@chatlytics/core';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { createWriter } from '../src/writer.js';
import { createConsumerMetrics } from '../src/metrics.js';
import { RecentIds } from '../src/recent-ids.js';
import { toSegment } from '../src/segment.js';
import { FakeClickHouse } from './fakes.js';
import { events, toMessage } from './events.js';
import { silent, testPipeline } from './helpers.js';

/** A writer over a FakeClickHouse whose inserts wait at a gate, so two writes overlap. */
function gatedWriter() {
  const ch = new FakeClickHouse();
  const gates: (() => void)[] = [];
  const clickhouse = Object.assign(Object.create(ch) as ClickHouseEngine, {
    insert: async (...args: Parameters<FakeClickHouse['insert']>) => {
      await new Promise<void>((r) => gates.push(r));
      return ch.insert(...args);
    },
  });
  const writer = createWriter({
    clickhouse, bus: { publishDeadLetter: async () => {} }, log: silent, metrics: createConsumerMetrics(createMetricsRegistry()),
    recent: new RecentIds(1000), recordRejects: true, tokenPrefix: 'test',
    retry: { log: silent, backoff: { baseMs: 1, maxMs: 2 }, shouldGiveUp: () => true, onRetry: () => {} },
  });
  return { ch, gates, writer };
}

const segmentOf = (partition: number, list: ReturnType<typeof events>) =>
  toSegment({ stream: 'events', partition, messages: list.map((e, i) => ({ ...toMessage(e), partition, offset: String(i), timestamp: Date.now() })) }, false, testPipeline());

t.test('an event id in two concurrent writes is inserted by one of them only', async (t) => {
  const { ch, gates, writer } = gatedWriter();
  const [a, b, c] = events(3);
  const first = writer.write([segmentOf(0, [a, b])], 'size');
  await new Promise((r) => setImmediate(r));
  // A retried beacon of b on another partition, while the first write is still in flight.
  const second = writer.write([segmentOf(1, [{ ...b, token: `${b.token}x` }, c])], 'size');
  while (gates.length < 2) await new Promise((r) => setImmediate(r));
  for (const g of gates.splice(0)) g();
  const [one, two] = await Promise.all([first, second]);
  t.same([one.inserted, one.duplicates], [2, 0]);
  t.same([two.inserted, two.duplicates], [1, 1], 'b was left out: the other write is inserting it');
  t.same(ch.events.map((r) => r.event_id).sort(), [a, b, c].map((e) => e.event_id).sort());
});

t.test('once a write is over, its ids are remembered as recent, not as in flight', async (t) => {
  const { gates, writer } = gatedWriter();
  const [a] = events(1);
  const first = writer.write([segmentOf(0, [a])], 'size');
  while (gates.length < 1) await new Promise((r) => setImmediate(r));
  gates.shift()!();
  await first;
  const again = writer.write([segmentOf(0, [a])], 'size');
  const summary = await again;
  t.same([summary.inserted, summary.duplicates], [0, 1]);
  t.equal(gates.length, 0, 'nothing left to insert');
});
