import t from 'tap';
import Fastify from 'fastify';
import { ingestApp } from '@chatlytics/ingest';
import { createMetricsRegistry } from '@chatlytics/core';
import { createConsumer } from '../src/consumer.js';
import { FAST, silent, testConfig, until } from './helpers.js';
import { counts, embeddedBus, migratedChdb, tempDir } from './real-engines.js';

// End to end through HTTP: POST to the tracking route (the real ingest plugin), the embedded
// bus, this consumer, chdb; then read the stored row back.
t.test('an event POSTed to the tracking endpoint is queryable in events, once, normalised', async (t) => {
  const dirs = tempDir('consumer-e2e-');
  const ch = await migratedChdb(`${dirs.dir}/clickhouse`);
  const bus = await embeddedBus(`${dirs.dir}/bus`);
  const registry = createMetricsRegistry();
  const app = Fastify();
  await app.register(ingestApp, { config: testConfig, bus, log: silent, registry });
  const consumer = createConsumer({ config: testConfig, bus, clickhouse: ch, log: silent, registry, options: FAST });
  await consumer.start();
  t.teardown(async () => { await app.close(); await consumer.stop(); await bus.close(); await ch.close(); dirs.remove(); });

  const clientEventId = '0190a0b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b';
  const purchase = {
    event: 'tracktrans', token: 'visitor_token_01', ab_test: true,
    data: { chatbot_id: 'bot-e2e', event_id: clientEventId, orderNum: 'A-1', items: [{ id: 'sku-1', price: 10, quantity: 2, currency: 'USD' }] },
  };
  // The browser retries its beacon: same client event id, twice.
  for (const payload of [purchase, purchase, { event: 'visitor', token: 'visitor_token_01', data: { chatbot_id: 'bot-e2e' } }]) {
    const res = await app.inject({ method: 'POST', url: '/api/analytics/track', payload });
    t.equal(res.statusCode, 200);
    t.same(res.json(), { success: true });
  }
  await until(async () => (await counts(ch)).distinct === 2, 'both events stored');
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  t.same(await counts(ch), { raw: 2, distinct: 2 }, 'the retried beacon is one row');
  const [row] = await ch.query<Record<string, unknown>>(
    "SELECT toString(event_id) AS event_id, event, chatbot_id, ab_group, total_value, total_value_base, order_num FROM events WHERE event = 'purchase'");
  t.match(row, { event_id: clientEventId, event: 'purchase', chatbot_id: 'bot-e2e', ab_group: 'test', total_value: 20, order_num: 'A-1' });
  t.ok(Math.abs(Number(row.total_value_base) - 18.4) < 1e-9, 'USD converted to EUR at 0.92');
});
