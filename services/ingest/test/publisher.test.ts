import t from 'tap';
import { Registry } from 'prom-client';
import { createIngestMetrics } from '../src/metrics.js';
import { createPublisher, PublisherClosedError, PublisherOverloadedError, PublisherTimeoutError } from '../src/publisher.js';
import { buildIngest, FakeBus, metricValue, TOKEN } from './helper.js';

const msg = (i: number, bytes = 10) => ({ key: `k${i}`, value: Buffer.alloc(bytes, 97) });

t.test('publishes of one I/O phase share one bus call and all resolve once it is durable', async (t) => {
  const bus = new FakeBus();
  const publisher = createPublisher({ bus });
  await Promise.all(Array.from({ length: 20 }, (_, i) => publisher.publish(msg(i))));
  t.equal(bus.calls.length, 1);
  t.same(bus.calls[0].map((m) => m.key), Array.from({ length: 20 }, (_, i) => `k${i}`), 'arrival order kept');
});

t.test('no time window: what gathers while batches are in flight goes out when one settles', async (t) => {
  const bus = new FakeBus();
  const publisher = createPublisher({ bus, maxInFlight: 1 });
  bus.hold();
  const first = publisher.publish(msg(0));
  await new Promise((r) => setImmediate(r));
  t.equal(bus.calls.length, 0, 'the first batch is in flight, held by the bus');
  const gathered = Array.from({ length: 5 }, (_, i) => publisher.publish(msg(i + 1)));
  await new Promise((r) => setTimeout(r, 20));
  t.equal(publisher.pendingEvents, 6, 'nothing else is sent while the one allowed batch is in flight');
  bus.release();
  await Promise.all([first, ...gathered]);
  t.same(bus.calls.map((c) => c.length), [1, 5], 'the gathered events went out together, right after');
});

t.test('a full batch goes out at once, without waiting for the I/O phase to end', async (t) => {
  const bus = new FakeBus();
  const publisher = createPublisher({ bus, maxBatchEvents: 4 });
  await Promise.all(Array.from({ length: 8 }, (_, i) => publisher.publish(msg(i))));
  t.same(bus.calls.map((c) => c.length), [4, 4]);
});

t.test('past the pending bound a publish is refused at once (overload), and accepted again once it drained', async (t) => {
  const bus = new FakeBus();
  const publisher = createPublisher({ bus, maxPendingEvents: 5 });
  bus.hold();
  const accepted = Array.from({ length: 5 }, (_, i) => publisher.publish(msg(i)));
  await t.rejects(publisher.publish(msg(5)), PublisherOverloadedError);
  bus.release();
  await Promise.all(accepted);
  await publisher.publish(msg(6));
  t.equal(bus.calls.flat().length, 6);
});

t.test('the pending byte bound refuses too', async (t) => {
  const bus = new FakeBus();
  const publisher = createPublisher({ bus, maxPendingBytes: 250 });
  bus.hold();
  const accepted = [publisher.publish(msg(0, 100)), publisher.publish(msg(1, 100)), publisher.publish(msg(2, 100))];
  await t.rejects(publisher.publish(msg(3, 100)), PublisherOverloadedError);
  bus.release();
  await Promise.all(accepted);
});

t.test('the byte cap splits batches', async (t) => {
  const bus = new FakeBus();
  const publisher = createPublisher({ bus, maxBatchEvents: 1000, maxBatchBytes: 300 });
  await Promise.all(Array.from({ length: 6 }, (_, i) => publisher.publish(msg(i, 100))));
  t.same(bus.calls.map((c) => c.length), [3, 3]);
});

t.test('a refused batch rejects every waiting caller; the next batch is independent', async (t) => {
  const bus = new FakeBus();
  const publisher = createPublisher({ bus });
  bus.failure = new Error('disk full');
  const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => publisher.publish(msg(i))));
  t.same(results.map((r) => r.status), Array(5).fill('rejected'));
  t.equal((results[0] as PromiseRejectedResult).reason.message, 'disk full');
  bus.failure = undefined;
  await publisher.publish(msg(9));
  t.equal(bus.calls.length, 1);
});

t.test('a bus that throws synchronously rejects the batch too', async (t) => {
  const publisher = createPublisher({ bus: { publish: () => { throw new Error('sync'); } } });
  await t.rejects(publisher.publish(msg(1)), { message: 'sync' });
});

t.test('drain sends what is queued, waits for in-flight batches, then refuses new events', async (t) => {
  const bus = new FakeBus();
  const publisher = createPublisher({ bus });
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
  const publisher = createPublisher({ bus, metrics: createIngestMetrics(registry) });
  await Promise.all([publisher.publish(msg(1)), publisher.publish(msg(2))]);
  bus.failure = new Error('down');
  await publisher.publish(msg(3)).catch(() => {});
  t.equal(await metricValue(registry, 'chatlytics_ingest_events_published_total'), 2);
  t.equal(await metricValue(registry, 'chatlytics_ingest_events_publish_failed_total'), 1);
  t.equal(await metricValue(registry, 'chatlytics_ingest_publish_batch_size_count'), 2);
  t.equal(await metricValue(registry, 'chatlytics_ingest_publish_batch_size_sum'), 3);
});

t.test('a bus that does not answer: each waiter is refused maxWaitMs after it arrived; queued ones are never sent', async (t) => {
  const registry = new Registry();
  const bus = new FakeBus();
  const publisher = createPublisher({ bus, maxInFlight: 1, maxWaitMs: 150, metrics: createIngestMetrics(registry) });
  bus.hold();
  const settledAt = (p: Promise<void>, t0: number) => p.then(() => -1, (err) => (err instanceof PublisherTimeoutError ? Date.now() - t0 : -2));
  const t0 = Date.now();
  const first = settledAt(publisher.publish(msg(0)), t0);
  await new Promise((r) => setImmediate(r));
  const queued = settledAt(publisher.publish(msg(1)), t0);
  await new Promise((r) => setTimeout(r, 100));
  const t1 = Date.now();
  const later = settledAt(publisher.publish(msg(2)), t1);
  const [a, b, c] = await Promise.all([first, queued, later]);
  t.ok(a >= 140 && a < 1000, `the batch in flight is answered at its bound (${a} ms)`);
  t.ok(b >= 140 && b < 1000, `the queued one too (${b} ms)`);
  t.ok(c >= 140 && c < 1000, `a later arrival gets its own full wait (${c} ms after it arrived)`);
  t.equal(publisher.pendingEvents, 1, 'withdrawn from the queue: only the batch in flight is left');
  bus.release();
  await new Promise((r) => setTimeout(r, 20));
  t.same(bus.calls.map((c) => c.map((m) => m.key)), [['k0']], 'the queued events were never sent');
  t.equal(await metricValue(registry, 'chatlytics_ingest_events_timed_out_total'), 3);
  await publisher.publish(msg(3));
  t.equal(bus.calls.length, 2, 'the next event goes through');
});

t.test('through HTTP: a bus that does not answer gets a 503 with Retry-After within the wait bound, not a dropped connection', async (t) => {
  const { app, bus } = await buildIngest({ batching: { maxWaitMs: 100, maxInFlight: 1 } });
  t.teardown(() => { bus.release(); return app.close(); });
  bus.hold();
  const started = Date.now();
  const responses = await Promise.all(Array.from({ length: 5 }, (_, i) =>
    app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: `${TOKEN}${i}` } })));
  t.ok(Date.now() - started < 2000, 'answered at the bound');
  t.same(responses.map((r) => r.statusCode), Array(5).fill(503));
  t.ok(responses.every((r) => r.json().error.code === 'ANALYTICS_004' && Number(r.headers['retry-after']) > 0));
});

t.test('a shorter HTTP idle timeout narrows the wait bound: the 503 still comes first', async (t) => {
  const { app, bus } = await buildIngest({ env: { HTTP_IDLE_TIMEOUT_MS: '1300' } });
  t.teardown(() => { bus.release(); return app.close(); });
  bus.hold();
  const started = Date.now();
  const res = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: TOKEN } });
  const waited = Date.now() - started;
  t.equal(res.statusCode, 503);
  t.ok(waited >= 250 && waited < 1300, `answered after ${waited} ms: the idle timeout less a second, not 7 s`);
});

t.test('the default wait bound lies between the Kafka publish deadline and the HTTP idle timeout', async (t) => {
  const { PUBLISHER_DEFAULTS } = await import('../src/publisher.js');
  const { DEFAULT_KAFKA_TIMEOUTS } = await import('@chatlytics/bus');
  const { testConfig } = await import('./helper.js');
  t.ok(PUBLISHER_DEFAULTS.maxWaitMs > DEFAULT_KAFKA_TIMEOUTS.publishMs, 'a batch sent at once is answered by the bus');
  t.ok(PUBLISHER_DEFAULTS.maxWaitMs < testConfig().http.idleTimeoutMs, 'the 503 arrives before the server drops the connection');
});

t.test('through HTTP: many concurrent requests make few publish calls; 200 only after durability', async (t) => {
  const { app, bus } = await buildIngest({ batching: { maxInFlight: 4, maxBatchEvents: 50 } });
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
  const { app, bus } = await buildIngest({ batching: { maxBatchEvents: 10 } });
  t.teardown(() => app.close());
  bus.failure = new Error('down');
  const responses = await Promise.all(Array.from({ length: 10 }, () =>
    app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: TOKEN } })));
  t.same(responses.map((r) => r.statusCode), Array(10).fill(503));
});

t.test('closing the app drains the publisher it created: requests waiting for the bus still get their 200', async (t) => {
  let reachedHandler!: () => void;
  const inHandler = new Promise<void>((resolve) => { reachedHandler = resolve; });
  // The clock is read just before the event is queued: a deterministic "request is in flight" signal.
  const clock = () => { reachedHandler(); return new Date(); };
  const { app, bus } = await buildIngest({ clock });
  bus.hold();
  let answered = false;
  const pending = app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: TOKEN } })
    .finally(() => { answered = true; });
  await inHandler;
  const closing = app.close();
  await new Promise((r) => setTimeout(r, 20));
  t.notOk(answered, 'no answer while the bus holds the batch');
  bus.release();
  await closing;
  t.equal((await pending).statusCode, 200);
  t.equal(bus.calls.length, 1);
});

t.test('through HTTP: overload answers 503 with Retry-After at once', async (t) => {
  const { app, bus } = await buildIngest({ batching: { maxPendingEvents: 3 } });
  t.teardown(() => { bus.release(); return app.close(); });
  bus.hold();
  const held = Array.from({ length: 3 }, (_, i) =>
    app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: `${TOKEN}${i}` } }));
  await new Promise((r) => setTimeout(r, 20));
  const refused = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: TOKEN } });
  t.equal(refused.statusCode, 503);
  t.equal(refused.headers['retry-after'], '1');
  t.equal(refused.json().error.code, 'ANALYTICS_004');
  bus.release();
  t.same((await Promise.all(held)).map((r) => r.statusCode), [200, 200, 200]);
});
