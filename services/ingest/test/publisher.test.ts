import t from 'tap';
import { Registry } from 'prom-client';
import { createIngestMetrics } from '../src/metrics.js';
import { createPublisher, PublisherClosedError } from '../src/publisher.js';
import { buildIngest, FakeBus, metricValue, TOKEN } from './helper.js';

const msg = (i: number, bytes = 10) => ({ key: `k${i}`, value: Buffer.alloc(bytes, 97) });

t.test('concurrent publishes share one bus call and all resolve once it is durable', async (t) => {
  const bus = new FakeBus();
  const publisher = createPublisher({ bus, maxDelayMs: 5 });
  await Promise.all(Array.from({ length: 20 }, (_, i) => publisher.publish(msg(i))));
  t.equal(bus.calls.length, 1);
  t.same(bus.calls[0].map((m) => m.key), Array.from({ length: 20 }, (_, i) => `k${i}`), 'arrival order kept');
});

t.test('a full batch goes out without waiting for the timer', async (t) => {
  const bus = new FakeBus();
  // A delay far beyond the test's run time: only the size trigger can flush.
  const publisher = createPublisher({ bus, maxDelayMs: 60_000, maxBatchEvents: 4 });
  await Promise.all(Array.from({ length: 8 }, (_, i) => publisher.publish(msg(i))));
  t.same(bus.calls.map((c) => c.length), [4, 4]);
});

t.test('the byte cap splits batches', async (t) => {
  const bus = new FakeBus();
  const publisher = createPublisher({ bus, maxDelayMs: 60_000, maxBatchEvents: 1000, maxBatchBytes: 300 });
  await Promise.all(Array.from({ length: 6 }, (_, i) => publisher.publish(msg(i, 100))));
  t.same(bus.calls.map((c) => c.length), [3, 3]);
});

t.test('a refused batch rejects every waiting caller; the next batch is independent', async (t) => {
  const bus = new FakeBus();
  const publisher = createPublisher({ bus, maxDelayMs: 1 });
  bus.failure = new Error('disk full');
  const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => publisher.publish(msg(i))));
  t.same(results.map((r) => r.status), Array(5).fill('rejected'));
  t.equal((results[0] as PromiseRejectedResult).reason.message, 'disk full');
  bus.failure = undefined;
  await publisher.publish(msg(9));
  t.equal(bus.calls.length, 1);
});

t.test('a bus that throws synchronously rejects the batch too', async (t) => {
  const publisher = createPublisher({ bus: { publish: () => { throw new Error('sync'); } }, maxDelayMs: 1 });
  await t.rejects(publisher.publish(msg(1)), { message: 'sync' });
});

t.test('drain sends what is queued, waits for in-flight batches, then refuses new events', async (t) => {
  const bus = new FakeBus();
  const publisher = createPublisher({ bus, maxDelayMs: 60_000 });
  bus.hold();
  const settled: string[] = [];
  const pending = Array.from({ length: 3 }, (_, i) => publisher.publish(msg(i)).then(() => settled.push(`k${i}`)));
  let drained = false;
  const draining = publisher.drain().then(() => { drained = true; });
  await new Promise((r) => setImmediate(r));
  t.notOk(drained, 'drain waits for the batch the bus has not acknowledged');
  bus.release();
  await draining;
  await Promise.all(pending);
  t.same(settled, ['k0', 'k1', 'k2']);
  t.equal(bus.calls.length, 1);
  await t.rejects(publisher.publish(msg(4)), PublisherClosedError);
});

t.test('metrics: batch sizes, published and failed counts', async (t) => {
  const registry = new Registry();
  const bus = new FakeBus();
  const publisher = createPublisher({ bus, maxDelayMs: 1, metrics: createIngestMetrics(registry) });
  await Promise.all([publisher.publish(msg(1)), publisher.publish(msg(2))]);
  bus.failure = new Error('down');
  await publisher.publish(msg(3)).catch(() => {});
  t.equal(await metricValue(registry, 'chatlytics_ingest_events_published_total'), 2);
  t.equal(await metricValue(registry, 'chatlytics_ingest_events_publish_failed_total'), 1);
  t.equal(await metricValue(registry, 'chatlytics_ingest_publish_batch_size_count'), 2);
  t.equal(await metricValue(registry, 'chatlytics_ingest_publish_batch_size_sum'), 3);
});

t.test('through HTTP: many concurrent requests make few publish calls; 200 only after durability', async (t) => {
  const { app, bus } = await buildIngest({ batching: { maxDelayMs: 60_000, maxBatchEvents: 50 } });
  t.teardown(() => app.close());
  bus.hold();
  let answered = 0;
  const requests = Array.from({ length: 200 }, (_, i) =>
    app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: `${TOKEN}${i}` } })
      .then((res) => { answered++; return res; }));
  await new Promise((r) => setTimeout(r, 20));
  t.equal(answered, 0, 'no answer while the bus has not acknowledged');
  bus.release();
  const responses = await Promise.all(requests);
  t.ok(responses.every((r) => r.statusCode === 200));
  t.equal(bus.calls.length, 4, '200 events in batches of 50');
  t.equal(new Set(bus.events().map((e) => e.event_id)).size, 200);
});

t.test('through HTTP: a refused batch answers 503 to every request in it', async (t) => {
  const { app, bus } = await buildIngest({ batching: { maxDelayMs: 60_000, maxBatchEvents: 10 } });
  t.teardown(() => app.close());
  bus.failure = new Error('down');
  const responses = await Promise.all(Array.from({ length: 10 }, () =>
    app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: TOKEN } })));
  t.same(responses.map((r) => r.statusCode), Array(10).fill(503));
});

t.test('closing the app drains the publisher it created: queued requests still get their 200', async (t) => {
  let reachedHandler!: () => void;
  const inHandler = new Promise<void>((resolve) => { reachedHandler = resolve; });
  // The clock is read just before the event is queued: a deterministic "request is in flight" signal.
  const clock = () => { reachedHandler(); return new Date(); };
  const { app, bus } = await buildIngest({ clock, batching: { maxDelayMs: 60_000 } });
  const pending = app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: TOKEN } });
  await inHandler;
  t.equal(bus.calls.length, 0, 'still queued (the timer is a minute away)');
  await app.close();
  t.equal((await pending).statusCode, 200);
  t.equal(bus.calls.length, 1);
});
