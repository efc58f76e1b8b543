import t from 'tap';
import { ClickHouseError } from '@chatlytics/clickhouse';
import { events, storedEvent, toMessage } from './events.js';
import { consumerFor, silent, until } from './helpers.js';
import { counts, deadLetters, embeddedBus, flakyInserts, refusingInserts, migratedChdb, tempDir } from './real-engines.js';
import { replay } from '../src/replay.js';
import { unwrapDeadLetter } from '../src/dead-letter.js';

// Integration tier: the real embedded bus (files in a temp dir) and the real chdb engine with
// the checked-in migrations. One chdb path per process; one database per test.
const chdbDir = tempDir('consumer-chdb-');
t.teardown(() => chdbDir.remove());

const unavailable = () => new ClickHouseError('CLICKHOUSE_UNAVAILABLE', 'connection refused', { retriable: true, statusCode: 503 });

async function setup(t: { teardown(fn: () => Promise<void>): void }, maxBatchMessages?: number) {
  const busDir = tempDir('consumer-bus-');
  const ch = await migratedChdb(chdbDir.dir);
  const bus = await embeddedBus(busDir.dir, maxBatchMessages);
  t.teardown(async () => { await bus.close(); await ch.close(); busDir.remove(); });
  return { ch, bus };
}

t.test('events published to the bus appear in ClickHouse exactly once, unchanged', async (t) => {
  const { ch, bus } = await setup(t, 300);
  const sent = events(2_000);
  const purchase = storedEvent(5, { items: [{ item_id: 'sku-9', value: 12.5, quantity: 2, currency: 'USD' }], total_value: 25, total_value_base: 23, currency: 'USD', ab_test: true, ab_group: 'test' });
  sent.push(purchase);
  await bus.publish(sent.map(toMessage));
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.same(await counts(ch), { raw: 2_001, distinct: 2_001 });
  const [row] = await ch.query<Record<string, unknown>>(
    'SELECT toString(event_id) AS id, ab_group, total_value_base, items, currency, received_at FROM events WHERE event_id = {id:UUID}', { id: purchase.event_id });
  t.match(row, { id: purchase.event_id, ab_group: 'test', total_value_base: 23, currency: 'USD', received_at: purchase.received_at });
  t.same(row.items, [{ item_id: 'sku-9', value: 12.5, quantity: 2, currency: 'USD' }], 'items stored');
  t.equal(consumer.stats().rowsWritten, 2_001);
});

t.test('a poison message between good ones: good ones land, poison in events_rejected and the DLQ', async (t) => {
  const { ch, bus } = await setup(t);
  const good = events(30);
  await bus.publish(good.slice(0, 15).map(toMessage));
  await bus.publish([{ key: 'k', value: Buffer.from('{"broken":') }, { key: 'k', value: Buffer.from(JSON.stringify({ ...good[0], token: 'x' })) }]);
  await bus.publish(good.slice(15).map(toMessage));
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.same(await counts(ch), { raw: 30, distinct: 30 });
  const rejected = await ch.query<{ reason: string; source: string; payload: string; error: string }>('SELECT reason, source, payload, error FROM events_rejected ORDER BY received_at, reason');
  t.same(rejected.map((r) => r.reason).sort(), ['invalid_event', 'malformed_json']);
  t.ok(rejected.every((r) => r.source === 'consumer'));
  t.ok(rejected.some((r) => r.payload === '{"broken":'));
  const dlq = await deadLetters(bus);
  t.equal(dlq.length, 2);
  t.same(dlq.map((m) => JSON.parse(m.value.toString()).reason).sort(), ['invalid_event', 'malformed_json']);
  t.ok(dlq.some((m) => unwrapDeadLetter(m.value)?.toString() === '{"broken":'));
});

t.test('a row ClickHouse refuses is isolated by bisection and dead-lettered; its batch lands', async (t) => {
  const { ch, bus } = await setup(t);
  const good = events(50);
  const refused = storedEvent(7, { data: '{"marker":"refuse-this-row"}' });
  const refusedBytes = Buffer.from(JSON.stringify(refused));
  await bus.publish(good.slice(0, 25).map(toMessage));
  await bus.publish([{ key: refused.token, value: refusedBytes }]);
  await bus.publish(good.slice(25).map(toMessage));
  const consumer = consumerFor(bus, refusingInserts(ch, 'refuse-this-row'));
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.same(await counts(ch), { raw: 50, distinct: 50 });
  const rejected = await ch.query<{ reason: string; payload: string }>('SELECT reason, payload FROM events_rejected');
  t.same(rejected, [{ reason: 'insert_rejected', payload: refusedBytes.toString() }], 'the bus bytes, not the insert line');
  t.equal((await deadLetters(bus)).length, 1);
});

t.test('an impossible timestamp is schema-invalid: dead-lettered before any insert or lookup', async (t) => {
  const { ch, bus } = await setup(t);
  const good = events(10);
  const bad = { ...storedEvent(8), received_at: '2026-13-45 99:99:99.999' };
  await bus.publish([...good.slice(0, 5), bad, ...good.slice(5)].map(toMessage));
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.same(await counts(ch), { raw: 10, distinct: 10 });
  const rejected = await ch.query<{ reason: string; error: string }>('SELECT reason, error FROM events_rejected');
  t.equal(rejected.length, 1);
  t.match(rejected[0], { reason: 'invalid_event', error: /received_at/ });
});

t.test('ClickHouse unavailable for a while, then back: no loss, no duplicates', async (t) => {
  const { ch, bus } = await setup(t, 100);
  const flaky = flakyInserts(ch, { before: (n) => (n < 6 ? unavailable() : undefined) });
  await bus.publish(events(500).map(toMessage));
  const consumer = consumerFor(bus, flaky);
  await consumer.start();
  await until(() => flaky.attempts >= 6, 'the outage');
  t.ok((await bus.lag()) > 0, 'nothing committed while ClickHouse is down');
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.same(await counts(ch), { raw: 500, distinct: 500 });
});

t.test('an insert written but reported failed is retried with the same token: ClickHouse ignores it', async (t) => {
  const { ch, bus } = await setup(t);
  // Every first attempt is written by the real engine and then reported as a lost connection.
  const flaky = flakyInserts(ch, { after: (n) => (n % 2 === 0 ? unavailable() : undefined) });
  await bus.publish(events(400).map(toMessage));
  const consumer = consumerFor(bus, flaky);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.ok(flaky.attempts >= 2 && flaky.attempts % 2 === 0, 'every insert was sent twice');
  t.same(await counts(ch), { raw: 400, distinct: 400 }, 'the raw row count did not double: the dedup token worked');
  t.equal(consumer.stats().duplicates, 0, 'the consumer itself left nothing out: ClickHouse did');
});

t.test('replay re-inserts only what is missing, and running it twice changes nothing', async (t) => {
  const { ch, bus } = await setup(t, 250);
  const from = new Date(Date.now() - 1000);
  const sent = events(1_000);
  await bus.publish(sent.map(toMessage));
  await bus.publish([{ key: 'k', value: Buffer.from('nope') }]);
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  // Lose some rows (as if a partition were dropped by mistake), then replay from the bus.
  await ch.command('DELETE FROM events WHERE event_id IN {ids:Array(UUID)}', { ids: sent.slice(0, 300).map((e) => e.event_id) });
  t.same(await counts(ch), { raw: 700, distinct: 700 });
  const first = await replay({ bus, clickhouse: ch, from, stream: 'events', log: silent });
  t.match(first, { stream: 'events', messages: 1_001, inserted: 300, duplicates: 700, rejected: 1 });
  t.same(await counts(ch), { raw: 1_000, distinct: 1_000 });
  const second = await replay({ bus, clickhouse: ch, from, stream: 'events', log: silent });
  t.match(second, { messages: 1_001, inserted: 0, duplicates: 1_000 });
  t.same(await counts(ch), { raw: 1_000, distinct: 1_000 }, 'twice is harmless');
  const dlq = await deadLetters(bus);
  t.equal(dlq.length, 1, 'replayed poison is not dead-lettered again');
});

t.test('replaying the dead-letter stream runs the original bytes through the pipeline again', async (t) => {
  const { ch, bus } = await setup(t);
  const e = storedEvent(1);
  // A dead letter whose payload is valid today (e.g. a schema fix shipped since).
  const wrapper = { reason: 'invalid_event', error: 'x', source: 'consumer', payload: JSON.stringify(e), payload_encoding: 'utf8' };
  await bus.publishDeadLetter([{ key: e.token, value: Buffer.from(JSON.stringify(wrapper)) }, { key: 'k', value: Buffer.from(JSON.stringify({ ...wrapper, payload: '{' })) }]);
  const summary = await replay({ bus, clickhouse: ch, from: new Date(0), stream: 'dead-letter', log: silent });
  t.match(summary, { stream: 'dead-letter', messages: 2, inserted: 1, rejected: 1 });
  t.same(await counts(ch), { raw: 1, distinct: 1 });
  t.equal((await deadLetters(bus)).length, 2, 'nothing appended to the stream being replayed');
});
