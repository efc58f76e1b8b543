import t from 'tap';
import Fastify from 'fastify';
import { createMetricsRegistry } from '@chatlytics/core';
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
  t.match(metrics, /chatlytics_consumer_lag_messages 0/);
  t.match(metrics, /chatlytics_consumer_step_messages_total\{step="canonical"\} 121/, 'every message entered the first step');
  t.match(metrics, /chatlytics_consumer_step_seconds_total\{step="decode"\} \d/, 'the garbage went on to decode');
  t.match(metrics, /chatlytics_consumer_insert_rows_count [1-9]/);
  t.match(metrics, /chatlytics_consumer_freshness_seconds_count [1-9]/);
  await consumer.stop();
});

t.test('two consumers on one registry share the metrics instead of failing to register', async (t) => {
  const registry = createMetricsRegistry();
  const a = createConsumer({ config: testConfig, bus: new FakeBus(1), clickhouse: new FakeClickHouse(), log: silent, registry });
  const b = createConsumer({ config: testConfig, bus: new FakeBus(1), clickhouse: new FakeClickHouse(), log: silent, registry });
  t.ok(a && b);
});
