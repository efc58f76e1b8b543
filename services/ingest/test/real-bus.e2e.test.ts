import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createEmbeddedBus, createKafkaBus, type EventBus } from '@chatlytics/bus';
import { createLogger, loadConfig } from '@chatlytics/core';
import { decodeStoredEvent, type StoredEvent } from '@chatlytics/events';
import { serverUnderTest } from '@chatlytics/core/testing';
import { buildIngest, TOKEN } from './helper.js';

// Tests are entry points: TEST_LOG_LEVEL=debug shows the bus' logs when a test misbehaves.
const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

async function readBack(bus: EventBus, fromTime: number): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  await bus.replay({
    stream: 'events', fromTime,
    handler: async (batch) => {
      for (const m of batch.messages) {
        const decoded = decodeStoredEvent(m.value);
        if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
        events.push(decoded.event);
      }
    },
  });
  return events;
}

/** What both real buses must show: every 200 is readable back, keyed by token, with the normalised row. */
async function ingestThenReadBack(t: Test, bus: EventBus) {
  const since = Date.now() - 1000;
  const { app } = await buildIngest({ bus });
  t.teardown(() => app.close());
  const tokens = Array.from({ length: 30 }, (_, i) => `${TOKEN}_${i}`);
  const responses = await Promise.all(tokens.map((token, i) => app.inject({
    method: 'POST', url: i % 2 ? '/api/save' : '/api/analytics/track',
    payload: { event: 'tracktrans', token, data: { chatbot_id: 'bot', orderNum: `o-${i}`, items: [{ id: 'p', price: 10, quantity: 2, currency: 'USD' }] } },
  })));
  t.ok(responses.every((r) => r.statusCode === 200), 'all accepted');
  const stored = await readBack(bus, since);
  const ours = stored.filter((e) => tokens.includes(e.token));
  t.equal(ours.length, tokens.length, 'every accepted event is in the bus');
  t.same(new Set(ours.map((e) => e.token)), new Set(tokens));
  t.match(ours[0], { event: 'purchase', chatbot_id: 'bot', total_value: 20, total_value_base: 20 * 0.92, currency: '' });
}

t.test('end to end on the embedded durable log', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingest-bus-'));
  const bus = await createEmbeddedBus({ dir, log });
  t.teardown(async () => {
    await bus.close();
    await fs.rm(dir, { recursive: true, force: true });
  });
  await ingestThenReadBack(t, bus);
});

t.test('a closed embedded log answers 503 ANALYTICS_004', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingest-bus-'));
  const bus = await createEmbeddedBus({ dir, log });
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const { app } = await buildIngest({ bus });
  t.teardown(() => app.close());
  await bus.close();
  const res = await app.inject({ method: 'POST', url: '/api/analytics/track', payload: { event: 'visitor', token: TOKEN } });
  t.equal(res.statusCode, 503);
  t.equal(res.json().error.code, 'ANALYTICS_004');
  t.ok(res.headers['retry-after']);
});

const kafka = serverUnderTest('KAFKA_BROKERS');
t.test('end to end on Kafka', { skip: kafka.skip }, async (t) => {
  // Tests are entry points: the broker flags come from the environment like in production.
  const base = loadConfig(process.env).kafka;
  const scope = `ingest-e2e-${process.pid}-${Date.now().toString(36)}`;
  const bus = createKafkaBus({ kafka: { ...base, topic: scope, dlqTopic: `${scope}-dlq`, groupId: `${scope}-group` }, log });
  t.teardown(() => bus.close());
  await ingestThenReadBack(t, bus);
});
