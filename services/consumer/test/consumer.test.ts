import t from 'tap';
import { AppError } from '@chatlytics/core';
import { ClickHouseError } from '@chatlytics/clickhouse';
import { FakeBus, FakeClickHouse } from './fakes.js';
import { events, toMessage } from './events.js';
import { consumerFor, until } from './helpers.js';
import { RejectReason } from '../src/errors.js';
import { unwrapDeadLetter } from '../src/dead-letter.js';

const ids = (rows: Record<string, unknown>[]) => rows.map((r) => String(r.event_id));

t.test('every published event lands exactly once, offsets commit after the insert', async (t) => {
  const bus = new FakeBus(4, 50);
  const ch = new FakeClickHouse();
  const sent = events(1_000);
  await bus.publish(sent.map(toMessage));
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.equal(ch.events.length, 1_000);
  t.same(new Set(ids(ch.events)), new Set(sent.map((e) => e.event_id)));
  const { token_id: tokenId, insert_key: insertKey, ...row } = ch.events.find((r) => r.event_id === sent[5].event_id)!;
  t.same(row, sent[5], 'the row is the event, unchanged');
  t.ok(BigInt(String(tokenId)) > 0n && BigInt(String(insertKey)) > 0n, 'with its token id and its insert key');
  const stats = consumer.stats();
  t.equal(stats.rowsWritten, 1_000);
  t.equal(stats.running, false);
  t.ok(ch.inserts.every((i) => i.token && /^[0-9a-f]{64}$/.test(i.token)), 'every insert carries a dedup token');
  t.ok(ch.inserts.filter((i) => i.table === 'events').length < 1_000 / 50, 'batches of several partitions share an insert');
});

t.test('a poison message between good ones: good ones land, poison goes to events_rejected and the DLQ, the partition flows', async (t) => {
  const bus = new FakeBus(1, 10);
  const ch = new FakeClickHouse();
  const good = events(20);
  await bus.publish(good.slice(0, 10).map(toMessage));
  await bus.publish([{ key: 'k', value: Buffer.from('{"not": "an event"') }]);
  await bus.publish([{ key: 'k', value: Buffer.from(JSON.stringify({ ...good[0], event_id: 'bad' })) }]);
  await bus.publish(good.slice(10).map(toMessage));
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.same(new Set(ids(ch.events)), new Set(good.map((e) => e.event_id)));
  t.same(ch.rejected.map((r) => r.reason), [RejectReason.Undecodable, RejectReason.SchemaInvalid]);
  t.match(ch.rejected[0], { source: 'consumer', payload: '{"not": "an event"', received_at: /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/ });
  t.match(ch.rejected[1].error, /event_id/);
  t.equal(bus.deadLetters.length, 2);
  const wrapper = JSON.parse(bus.deadLetters[0].value.toString());
  t.match(wrapper, { reason: 'malformed_json', step: 'decode', source: 'consumer', stream: 'events', partition: 0, offset: '10' });
  t.match(JSON.parse(bus.deadLetters[1].value.toString()), { reason: 'invalid_event', step: 'validate', offset: '11' }, 'each dead letter names its step');
  t.equal(unwrapDeadLetter(bus.deadLetters[0].value)?.toString(), '{"not": "an event"', 'the original bytes survive');
  t.equal(consumer.stats().rejected, 2);
});

t.test('ClickHouse unavailable for a while: back off, nothing committed, then no loss and no duplicates', async (t) => {
  const bus = new FakeBus(2, 20);
  const ch = new FakeClickHouse();
  let failures = 0;
  ch.beforeInsert = (table) => {
    if (table === 'events' && failures < 7) {
      failures++;
      throw new AppError('CH_DOWN', 'connection refused', { retriable: true, statusCode: 503 });
    }
  };
  const sent = events(200);
  await bus.publish(sent.map(toMessage));
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(() => failures === 7, 'the outage');
  t.ok(await bus.lag() > 0, 'nothing committed during the outage');
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.equal(ch.events.length, 200);
  t.equal(new Set(ids(ch.events)).size, 200);
});

t.test('an insert that timed out after the write is retried with the same token and ignored', async (t) => {
  const bus = new FakeBus(1, 100);
  const ch = new FakeClickHouse();
  let timeouts = 0;
  ch.afterInsert = (table) => {
    if (table === 'events' && timeouts++ === 0) throw new AppError('CH_TIMEOUT', 'socket hang up', { retriable: true });
  };
  await bus.publish(events(50).map(toMessage));
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.equal(ch.events.length, 50, 'written once although inserted twice');
  const attempts = ch.inserts.filter((i) => i.table === 'events');
  t.equal(attempts.length, 1, 'the second attempt was deduplicated by its token');
});

t.test('a non-retriable refusal is bisected: only the refused row is dead-lettered', async (t) => {
  const bus = new FakeBus(1, 100);
  const ch = new FakeClickHouse();
  const sent = events(40);
  const bad = sent[17].event_id;
  ch.beforeInsert = (table, rows) => {
    if (table === 'events' && rows.some((r) => (r as { event_id: string }).event_id === bad)) throw new ClickHouseError('CLICKHOUSE_QUERY', 'Cannot parse input', { clickhouseCode: 27 });
  };
  await bus.publish(sent.map(toMessage));
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.equal(ch.events.length, 39);
  t.notOk(ids(ch.events).includes(bad));
  t.same(ch.rejected.map((r) => r.reason), [RejectReason.InsertRejected]);
  t.equal(JSON.parse(String(ch.rejected[0].payload)).event_id, bad);
  t.equal(bus.deadLetters.length, 1);
  t.match(JSON.parse(bus.deadLetters[0].value.toString()), { reason: 'insert_rejected', step: 'insert' });
});

t.test('a refusal not about a row (unknown table) fails the batch uncommitted, dead-letters nothing', async (t) => {
  const bus = new FakeBus(1, 100);
  const ch = new FakeClickHouse();
  let broken = true;
  let refusals = 0;
  ch.beforeInsert = (table) => {
    if (table === 'events' && broken) {
      refusals++;
      throw new ClickHouseError('CLICKHOUSE_QUERY', 'Table analytics.events does not exist', { clickhouseCode: 60 });
    }
  };
  await bus.publish(events(30).map(toMessage));
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(() => refusals >= 3, 'redelivered several times');
  t.equal(await bus.lag(), 30, 'nothing committed');
  t.equal(bus.deadLetters.length, 0, 'a misconfiguration does not dead-letter the events');
  t.equal(ch.inserts.filter((i) => i.table === 'events').length, 0);
  broken = false;
  await until(async () => (await bus.lag()) === 0, 'fixed: lag 0');
  await consumer.stop();
  t.equal(ch.events.length, 30);
  t.ok(consumer.stats().failedBatches >= 3);
});

t.test('a redelivery after a crash between insert and commit is fenced: stored rows are left out', async (t) => {
  const bus = new FakeBus(2, 30);
  const ch = new FakeClickHouse();
  const sent = events(120);
  await bus.publish(sent.map(toMessage));
  // First life: insert, then "crash" before any commit (the commit is simply forgotten).
  const first = consumerFor(bus, ch);
  await first.start();
  await until(async () => (await bus.lag()) === 0, 'first pass');
  await first.stop();
  bus.resetCommits();
  // Second life: the same messages come again, cut into other batches.
  const busAgain = bus;
  (busAgain as unknown as { maxBatch: number }).maxBatch = 17;
  const second = consumerFor(busAgain, ch);
  await second.start();
  await until(async () => (await bus.lag()) === 0, 'second pass');
  await second.stop();
  t.equal(ch.events.length, 120, 'raw rows not doubled');
  t.equal(second.stats().duplicates, 120);
  t.ok(second.stats().fencedBatches >= 2, 'each partition fenced on its first batch, and on while the stored rows go on');
});

t.test('a partition handed back by a rebalance is fenced as after a restart: what its other owner stored is left out', async (t) => {
  const bus = new FakeBus(1, 30);
  bus.flagAssignments = true;
  const ch = new FakeClickHouse();
  const sent = events(60);
  await bus.publish(sent.slice(0, 30).map(toMessage));
  const a = consumerFor(bus, ch);
  await a.start();
  await until(async () => (await bus.lag()) === 0, 'A stored and committed offsets 0-29');
  await a.stop();
  // The partition moves to B, which stores offsets 30-59 and dies before committing them.
  await bus.publish(sent.slice(30).map(toMessage));
  const b = consumerFor(bus, ch);
  await b.start();
  await until(async () => (await bus.lag()) === 0, 'B stored 30-59');
  await b.stop();
  bus.resetCommits([30]);
  // Back to A, whose own bookkeeping expects offset 30 next: only the flag says someone else was here.
  await a.start();
  await until(async () => (await bus.lag()) === 0, 'A again');
  await a.stop();
  t.equal(ch.events.length, 60, 'raw rows not doubled');
  t.equal(a.stats().duplicates, 30, "B's rows found stored and left out");
});

t.test('the same event id twice (a retried beacon) is written once', async (t) => {
  const bus = new FakeBus(1, 100);
  const ch = new FakeClickHouse();
  const [e] = events(1);
  await bus.publish([toMessage(e), toMessage(e)]);
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await bus.publish([toMessage(e)]);
  await until(async () => (await bus.lag()) === 0, 'lag 0 again');
  await consumer.stop();
  t.equal(ch.events.length, 1);
  t.equal(consumer.stats().duplicates, 2);
});

t.test('stop() while ClickHouse stays down gives up after the grace period and commits nothing', async (t) => {
  const bus = new FakeBus(1, 10);
  const ch = new FakeClickHouse();
  ch.up = false;
  await bus.publish(events(10).map(toMessage));
  const consumer = consumerFor(bus, ch, { stopGraceMs: 50 });
  await consumer.start();
  await until(() => consumer.stats().batches > 0, 'a batch in flight');
  await consumer.stop();
  t.equal(await bus.lag(), 10, 'still uncommitted: redelivered on the next start');
  t.equal(consumer.stats().failedBatches >= 1, true);
  t.equal(ch.events.length, 0);
});

t.test('start twice is a coded error', async (t) => {
  const consumer = consumerFor(new FakeBus(1), new FakeClickHouse());
  await consumer.start();
  await t.rejects(consumer.start(), { code: 'CONSUMER_002' });
  await consumer.stop();
});
