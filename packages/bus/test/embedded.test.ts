import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Registry } from 'prom-client';
import { BusInUseError, BusLogCorruptError, BusReplayFailedError, BusUsageError, createEmbeddedBus, type EmbeddedBusOptions } from '../src/index.js';
import { Collector, message, payload, testBackoff, testLog } from './helpers.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bus-embedded-'));
t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => path.join(root, `case-${n++}`);
const open = (dir: string, extra: Partial<EmbeddedBusOptions> = {}) =>
  createEmbeddedBus({ dir, log: testLog, retryBackoff: testBackoff, ...extra });
const segmentFiles = (dir: string) => fs.readdirSync(path.join(dir, 'events')).filter((f) => f.endsWith('.log')).sort();

async function consumeAll(dir: string, extra: Partial<EmbeddedBusOptions> = {}) {
  const bus = await open(dir, extra);
  const c = new Collector();
  const total = await bus.lag();
  const consumer = await bus.consume(c.handler);
  await c.until(total);
  await consumer.stop();
  return { bus, seqs: c.accepted.map((m) => payload(m).seq), offsets: c.accepted.map((m) => m.offset) };
}

/** Ten records in one segment, then the bus is closed so the test can damage the file. */
async function tenRecords(dir: string) {
  const bus = await open(dir);
  for (let i = 0; i < 10; i++) await bus.publish([message('torn', 'tok_torntail', i)]);
  await bus.close();
  return path.join(dir, 'events', segmentFiles(dir)[0]);
}

t.test('torn tail: a record cut short by a crash is truncated on reopen, the rest survives', async (t) => {
  const dir = freshDir();
  const file = await tenRecords(dir);
  fs.truncateSync(file, fs.statSync(file).size - 5);
  const { bus, seqs, offsets } = await consumeAll(dir);
  t.teardown(() => bus.close());
  t.same(seqs, [0, 1, 2, 3, 4, 5, 6, 7, 8], 'the torn record is gone, earlier ones intact');
  t.same(offsets, ['0', '1', '2', '3', '4', '5', '6', '7', '8']);
  await bus.publish([message('torn', 'tok_torntail', 99)]);
  const c = new Collector();
  const consumer = await bus.consume(c.handler);
  await c.until(1);
  await consumer.stop();
  t.equal(c.accepted[0].offset, '9', 'appends continue right after the last valid record');
});

t.test('torn tail: garbled last bytes fail the CRC and are truncated', async (t) => {
  const dir = freshDir();
  const file = await tenRecords(dir);
  const buf = fs.readFileSync(file);
  for (let i = buf.length - 3; i < buf.length; i++) buf[i] ^= 0xff;
  fs.writeFileSync(file, buf);
  const { bus, seqs } = await consumeAll(dir);
  t.teardown(() => bus.close());
  t.same(seqs, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  t.ok(fs.statSync(file).size < buf.length, 'file truncated to its valid prefix');
});

t.test('torn tail: zero-filled space after the last record (unwritten blocks) is dropped, nothing lost', async (t) => {
  const dir = freshDir();
  const file = await tenRecords(dir);
  fs.appendFileSync(file, Buffer.alloc(4096));
  const { bus, seqs } = await consumeAll(dir);
  t.teardown(() => bus.close());
  t.same(seqs, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

t.test('group commit: concurrent publishes share fsyncs, each resolving only after one', async (t) => {
  const registry = new Registry();
  const bus = await open(freshDir(), { registry });
  t.teardown(() => bus.close());
  const before = bus.stats().eventsFsyncs;
  await Promise.all(Array.from({ length: 200 }, (_, i) => bus.publish([message('gc', `tok_user${i % 20}xx`, i, 300)])));
  const fsyncs = bus.stats().eventsFsyncs - before;
  t.ok(fsyncs >= 1 && fsyncs <= 10, `200 publishes made durable by ${fsyncs} fsync(s)`);
  const text = await registry.metrics();
  t.match(text, /chatlytics_bus_fsync_batch_messages_sum\{stream="events"\} 200\n/, 'fsync batch-size metric saw every message');
  t.match(text, new RegExp(`chatlytics_bus_fsync_batch_messages_count\\{stream="events"\\} ${fsyncs}\\n`), 'one observation per fsync');
  t.match(text, /chatlytics_bus_published_messages_total\{bus="embedded",stream="events"\} 200\n/);
  t.equal(await bus.lag(), 200);
});

t.test('group commit: a size cap splits a burst into several fsyncs', async (t) => {
  const bus = await open(freshDir(), { groupCommitBytes: 2000 });
  t.teardown(() => bus.close());
  // 50 publishes of ~560 bytes, at most three per 2000-byte group: at least 17 fsyncs.
  await Promise.all(Array.from({ length: 50 }, (_, i) => bus.publish([message('cap', 'tok_capped1', i, 500)])));
  t.ok(bus.stats().eventsFsyncs >= 17, `${bus.stats().eventsFsyncs} fsyncs`);
  t.equal(await bus.lag(), 50);
});

t.test('segment clean-up: consumed segments go once out of retention; the active one stays', async (t) => {
  const dir = freshDir();
  const { bus, seqs } = await (async () => {
    const bus = await open(dir, { segmentBytes: 1024 });
    for (let i = 0; i < 40; i++) await bus.publish([message('seg', 'tok_segment', i, 250)]);
    t.ok(bus.stats().eventSegments >= 10, `rolled into ${bus.stats().eventSegments} segments`);
    await bus.close();
    return consumeAll(dir, { segmentBytes: 1024, retention: { maxAgeMs: 0 } });
  })();
  t.teardown(() => bus.close());
  t.same(seqs, Array.from({ length: 40 }, (_, i) => i));
  t.same(segmentFiles(dir).length, 1, 'only the active segment is left');
  t.equal(JSON.parse(fs.readFileSync(path.join(dir, 'consumer-offsets.json'), 'utf8')).events, '40', 'offset persisted as a decimal string');
  const replayed = new Collector();
  await bus.replay({ stream: 'events', fromTime: 0, handler: replayed.handler });
  t.ok(replayed.accepted.every((m) => Number(m.offset) >= 36), 'replay reads what is retained');
});

t.test('a batch runs across segment boundaries up to its limits (a segment is not a delivery unit)', async (t) => {
  const dir = freshDir();
  // ~330-byte records, 3 per 1 KiB segment: 14 segments for 40 records.
  const writer = await open(dir, { segmentBytes: 1024 });
  for (let i = 0; i < 40; i++) await writer.publish([message('span', 'tok_spanning', i, 250)]);
  t.ok(writer.stats().eventSegments >= 10, `rolled into ${writer.stats().eventSegments} segments`);
  await writer.close();

  const bus = await open(dir, { segmentBytes: 1024, maxBatchMessages: 16 });
  const c = new Collector();
  const consumer = await bus.consume(c.handler);
  await c.until(40);
  await consumer.stop();
  t.same(c.deliveries.map((b) => b.messages.length), [16, 16, 8], 'batches filled to maxBatchMessages, not cut at each segment');
  t.same(c.accepted.map((m) => payload(m).seq), Array.from({ length: 40 }, (_, i) => i), 'in order, none lost or repeated');
  t.same(c.accepted.map((m) => m.offset), Array.from({ length: 40 }, (_, i) => String(i)));
  await bus.close();

  // The byte limit holds across segments too: 2,000 bytes is about 6 records of ~330.
  const byBytes = await open(dir, { segmentBytes: 1024, maxBatchBytes: 2000 });
  t.teardown(() => byBytes.close());
  const replayed = new Collector();
  await byBytes.replay({ stream: 'events', fromTime: 0, handler: replayed.handler });
  const sizes = replayed.deliveries.map((b) => b.messages.reduce((sum, m) => sum + m.value.length, 0));
  t.ok(replayed.deliveries.length > 1 && replayed.deliveries.slice(0, -1).every((b) => b.messages.length >= 5), `batches of ${replayed.deliveries.map((b) => b.messages.length)}`);
  t.ok(sizes.every((n) => n <= 2000 + 330), 'no batch beyond maxBatchBytes by more than one record');
});

t.test('segment clean-up keeps retained history for replay and never deletes unconsumed records', async (t) => {
  const dir = freshDir();
  // ~330-byte records, 4 per 1 KiB segment: 10 segments, ~13 KB. A 9000-byte budget must drop
  // some of the 5 consumed segments (ages are within maxAgeMs) but can never touch the unconsumed 5.
  const bus = await open(dir, { segmentBytes: 1024, maxBatchMessages: 4, retention: { maxAgeMs: 3600_000, maxBytes: 9000 } });
  t.teardown(() => bus.close());
  for (let i = 0; i < 40; i++) await bus.publish([message('keep', 'tok_keephist', i, 250)]);
  const c = new Collector();
  c.behaviour = (batch) => {
    if (batch.messages.some((m) => payload(m).seq >= 20)) throw new Error('store down for the second half');
  };
  const consumer = await bus.consume(c.handler);
  await c.until(20);
  await consumer.stop();
  t.equal(await bus.lag(), 20, 'half consumed');
  const replayed = new Collector();
  await bus.replay({ stream: 'events', fromTime: 0, handler: replayed.handler });
  const seqs = replayed.accepted.map((m) => payload(m).seq);
  t.same(seqs.filter((s) => s >= 20), Array.from({ length: 20 }, (_, i) => 20 + i), 'every unconsumed record is still there');
  t.ok(seqs[0] > 0, 'consumed segments beyond the byte budget were deleted');
  t.ok(seqs[0] < 20, 'some consumed history is still retained');
});

t.test('a record bigger than a read chunk and than maxBatchBytes is delivered whole', async (t) => {
  const bus = await open(freshDir(), { maxBatchBytes: 1024 });
  t.teardown(() => bus.close());
  const big = { key: 'tok_bigvalue', value: Buffer.alloc(300 * 1024, 7) };
  await bus.publish([message('big', 'tok_small01', 1), big, message('big', 'tok_small01', 2)]);
  const c = new Collector();
  const consumer = await bus.consume(c.handler);
  await c.until(3);
  await consumer.stop();
  t.ok(c.accepted[1].value.equals(big.value));
  t.same([payload(c.accepted[0]).seq, payload(c.accepted[2]).seq], [1, 2]);
});

t.test('one consumer at a time, one open bus per directory', async (t) => {
  const dir = freshDir();
  const bus = await open(dir);
  t.teardown(() => bus.close());
  const consumer = await bus.consume(async () => {});
  await t.rejects(bus.consume(async () => {}), BusUsageError);
  await consumer.stop();
  await (await bus.consume(async () => {})).stop();
  await t.rejects(open(dir), BusInUseError);
});

t.test('an unreadable offsets file stops start-up instead of guessing', async (t) => {
  const dir = freshDir();
  await (await open(dir)).close();
  fs.writeFileSync(path.join(dir, 'consumer-offsets.json'), '{"events": 12');
  await t.rejects(open(dir), BusLogCorruptError);
});

t.test('replay gives up after its handler rejected the same batch replayMaxAttempts times', async (t) => {
  const bus = await open(freshDir(), { replayMaxAttempts: 3 });
  t.teardown(() => bus.close());
  await bus.publish([message('rp', 'tok_replay01', 1)]);
  let calls = 0;
  await t.rejects(bus.replay({ stream: 'events', fromTime: 0, handler: async () => { calls++; throw new Error('nope'); } }), BusReplayFailedError);
  t.equal(calls, 3);
});

t.test('read-ahead: the next batch is handed over while the previous one is pending; commits stay in order', async (t) => {
  const dir = freshDir();
  const bus = await open(dir, { maxBatchMessages: 5, readAhead: 2 });
  t.teardown(() => bus.close());
  for (let i = 0; i < 15; i++) await bus.publish([message('ahead', 'tok_readahead', i)]);
  const offsetsFile = () => JSON.parse(fs.readFileSync(path.join(dir, 'consumer-offsets.json'), 'utf8')).events;
  let releaseFirst!: () => void;
  const firstHeld = new Promise<void>((resolve) => { releaseFirst = resolve; });
  const delivered: string[] = [];
  let secondDone!: () => void;
  const secondFinished = new Promise<void>((resolve) => { secondDone = resolve; });
  let attemptsOfFirst = 0;
  const consumer = await bus.consume(async (batch) => {
    const first = batch.messages[0].offset;
    delivered.push(first);
    if (first === '0') {
      attemptsOfFirst++;
      await firstHeld;
      if (attemptsOfFirst === 1) throw new Error('first attempt fails after the second batch succeeded');
    }
    if (first === '5') secondDone();
  });
  await secondFinished;
  t.same(delivered, ['0', '5'], 'batch 2 was handed over while batch 1 was still pending');
  t.equal(await bus.lag(), 15, 'nothing committed: batch 2 is done but batch 1 is not');
  t.equal(fs.existsSync(path.join(dir, 'consumer-offsets.json')) ? offsetsFile() : '0', '0');
  releaseFirst();
  while ((await bus.lag()) > 0) await new Promise((r) => setTimeout(r, 5));
  await consumer.stop();
  t.equal(attemptsOfFirst, 2, 'the failed batch was redelivered');
  t.same(delivered.filter((o) => o === '5'), ['5'], 'the batch that succeeded is not redelivered');
  t.same(delivered.slice(-1), ['10']);
  t.equal(offsetsFile(), '15', 'everything committed once every batch was accepted');
});

t.test('read-ahead: stop commits the accepted prefix only', async (t) => {
  const dir = freshDir();
  const bus = await open(dir, { maxBatchMessages: 4, readAhead: 2 });
  t.teardown(() => bus.close());
  for (let i = 0; i < 12; i++) await bus.publish([message('stop', 'tok_readstop', i)]);
  let reached!: () => void;
  const secondStarted = new Promise<void>((resolve) => { reached = resolve; });
  const consumer = await bus.consume(async (batch) => {
    if (batch.messages[0].offset === '4') {
      reached();
      throw new Error('the store is down for this batch');
    }
  });
  await secondStarted;
  await consumer.stop();
  t.equal(await bus.lag(), 8, 'the first batch (accepted) is committed, the refused one and later are not');
});

t.test('lagReport: messages waiting and the bus time of the oldest uncommitted one, across segments', async (t) => {
  const bus = await open(freshDir(), { segmentBytes: 1024, maxBatchMessages: 7, readAhead: 1 });
  t.teardown(() => bus.close());
  t.same(await bus.lagReport(), { partitions: [{ partition: 0, messages: 0 }], oldestUncommittedAt: null, retentionMs: null }, 'nothing waits');
  const times: number[] = [];
  for (let i = 0; i < 12; i++) {
    await bus.publish([message('lag', 'tok_lagging', i, 250)]);
    times.push(Date.now());
    await new Promise((r) => setTimeout(r, 5));
  }
  const first = await bus.lagReport();
  t.same(first.partitions, [{ partition: 0, messages: 12 }]);
  t.ok(first.oldestUncommittedAt! <= times[0] && first.oldestUncommittedAt! > times[0] - 50, 'the first record\'s bus time');
  const c = new Collector();
  let accepted = 0;
  // Accept the first batch (7 messages), then refuse: the committed offset stops at 7, in a later segment.
  c.behaviour = (batch) => { if (accepted >= 7) throw new Error('store down'); accepted += batch.messages.length; };
  const consumer = await bus.consume(c.handler);
  await c.until(7);
  await consumer.stop();
  const after = await bus.lagReport();
  const i = c.accepted.length;
  t.equal(i, 7);
  t.same(after.partitions, [{ partition: 0, messages: 5 }]);
  t.ok(after.oldestUncommittedAt! > times[i - 1] - 1 && after.oldestUncommittedAt! <= times[i], `message ${i}'s bus time`);
  t.equal(after.retentionMs, null, 'the embedded log never deletes what the group has not committed');
});
