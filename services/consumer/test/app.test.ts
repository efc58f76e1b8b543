import t from 'tap';
import Fastify from 'fastify';
import { AppError, createMetricsRegistry } from '@chatlytics/core';
import { consumerApp, createConsumer } from '../src/app.js';
import { FakeBus, FakeClickHouse } from './fakes.js';
import { events, toMessage } from './events.js';
import { FAST, silent, testConfig, until } from './helpers.js';

t.test('the consumer service answers /health, /ready (stores, lag, pipeline) and /metrics', async (t) => {
  const registry = createMetricsRegistry();
  const bus = new FakeBus(2, 50);
  const clickhouse = new FakeClickHouse();
  const consumer = createConsumer({ config: testConfig, bus, clickhouse, log: silent, registry, options: FAST });
  const app = Fastify();
  await app.register(consumerApp, { registry, bus, clickhouse, consumer });
  t.teardown(() => app.close());

  t.same((await app.inject('/health')).json(), { status: 'ok' });
  const notRunning = await app.inject('/ready');
  t.equal(notRunning.statusCode, 503, 'not ready before the consumer runs');
  t.match(notRunning.json(), { status: 'unavailable', stores: { consumer: { status: 'down' }, clickhouse: { status: 'ok' }, bus: { status: 'ok' } } });

  await bus.publish(events(120).map(toMessage));
  await bus.publish([{ key: 'k', value: Buffer.from('garbage') }]);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  const ready = await app.inject('/ready');
  t.equal(ready.statusCode, 200);
  t.match(ready.json(), { status: 'ok', stores: { bus: { status: 'ok', consumer_lag: 0 }, consumer: { status: 'ok', rows_written: 120, rejected: 1 } } });

  clickhouse.up = false;
  const down = await app.inject('/ready');
  t.equal(down.statusCode, 503);
  t.match(down.json(), { stores: { clickhouse: { status: 'down', error: 'ClickHouse did not answer' } } });
  clickhouse.up = true;

  const metrics = (await app.inject('/metrics')).body;
  t.match(metrics, /chatlytics_consumer_rows_written_total 120/);
  t.match(metrics, /chatlytics_consumer_rejects_total\{reason="malformed_json"\} 1/);
  t.match(metrics, /chatlytics_consumer_lag_messages\{partition="0"\} 0\n/);
  t.match(metrics, /chatlytics_consumer_lag_messages\{partition="1"\} 0\n/, 'lag per partition');
  t.match(metrics, /chatlytics_consumer_lag_seconds 0\n/);
  t.match(metrics, /chatlytics_consumer_lag_retention_ratio 0\n/, '0 for a bus that never deletes unconsumed events');
  t.match(metrics, /chatlytics_consumer_step_messages_total\{step="canonical"\} 121/, 'every message entered the first step');
  t.match(metrics, /chatlytics_consumer_step_seconds_total\{step="decode"\} \d/, 'the garbage went on to decode');
  t.match(metrics, /chatlytics_consumer_insert_rows_count [1-9]/);
  t.match(metrics, /chatlytics_consumer_freshness_seconds_count [1-9]/);
  await consumer.stop();
});

t.test('an event older than CONSUMER_LAG_ALERT_SECONDS still unstored makes /ready degraded (200) with the figure', async (t) => {
  const registry = createMetricsRegistry();
  const bus = new FakeBus(2, 50);
  const clickhouse = new FakeClickHouse();
  const config = { ...testConfig, consumerLagAlertSeconds: 1 };
  const consumer = createConsumer({ config, bus, clickhouse, log: silent, registry, options: FAST });
  const app = Fastify();
  await app.register(consumerApp, { registry, bus, clickhouse, consumer });
  t.teardown(() => app.close());
  // ClickHouse answers pings but refuses inserts (retriably): the events wait, nothing is down.
  clickhouse.beforeInsert = () => { throw new AppError('CH_DOWN', 'too many parts', { retriable: true, statusCode: 503 }); };
  await bus.publish(events(40).map(toMessage));
  const publishedAt = Date.now();
  await consumer.start();
  await new Promise((r) => setTimeout(r, 1300));
  const lagging = await app.inject('/ready');
  t.equal(lagging.statusCode, 200, 'degraded is still ready');
  const body = lagging.json();
  t.match(body, { status: 'degraded', stores: { lag: { status: 'degraded', lag_messages: 40, alert_seconds: 1, retention_used: null }, clickhouse: { status: 'ok' } } });
  t.ok(body.stores.lag.lag_seconds >= 1 && body.stores.lag.lag_seconds <= (Date.now() - publishedAt) / 1000 + 0.1, `the oldest unstored event's age (${body.stores.lag.lag_seconds} s)`);
  const metrics = (await app.inject('/metrics')).body;
  const seconds = Number(/^chatlytics_consumer_lag_seconds (\S+)$/m.exec(metrics)?.[1]);
  t.ok(seconds >= 1, `chatlytics_consumer_lag_seconds ${seconds}`);
  const perPartition = [...metrics.matchAll(/^chatlytics_consumer_lag_messages\{partition="(\d)"\} (\d+)$/gm)].map((m) => Number(m[2]));
  t.equal(perPartition.length, 2);
  t.equal(perPartition.reduce((a, b) => a + b, 0), 40, 'per partition, summing to the waiting events');

  clickhouse.beforeInsert = undefined;
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await new Promise((r) => setTimeout(r, 1100));
  t.match((await app.inject('/ready')).json(), { status: 'ok', stores: { lag: { status: 'ok', lag_seconds: 0, lag_messages: 0 } } });
  await consumer.stop();
});

t.test('two consumers on one registry share the metrics instead of failing to register', async (t) => {
  const registry = createMetricsRegistry();
  const a = createConsumer({ config: testConfig, bus: new FakeBus(1), clickhouse: new FakeClickHouse(), log: silent, registry });
  const b = createConsumer({ config: testConfig, bus: new FakeBus(1), clickhouse: new FakeClickHouse(), log: silent, registry });
  t.ok(a && b);
});
