import t from 'tap';
import { encodeSetAsideEvent } from '@chatlytics/events';
import { events, storedEvent, toMessage } from './events.js';
import { consumerFor, until } from './helpers.js';
import { counts, deadLetters, embeddedBus, migratedChdb, tempDir } from './real-engines.js';
import { FakeBus, FakeClickHouse } from './fakes.js';
import { createSetAsideStep } from '../src/set-aside-step.js';
import { RowWriter } from '../src/row-binary.js';
import { message } from './messages.js';

// A purchase the ingest set aside (implausible, or unverified when the chatbot requires
// signatures) must never become a row of `events`, which every statistic and the order rule read.
const chdbDir = tempDir('consumer-set-aside-chdb-');
t.teardown(() => chdbDir.remove());

t.test('set-aside purchases go to events_rejected (source ingest, chatbot, event id), never to events nor the DLQ', async (t) => {
  const busDir = tempDir('consumer-set-aside-bus-');
  const ch = await migratedChdb(chdbDir.dir);
  const bus = await embeddedBus(busDir.dir);
  t.teardown(async () => { await bus.close(); await ch.close(); busDir.remove(); });

  const good = events(20);
  const forged = storedEvent(5, { chatbot_id: 'shop-1', order_num: 'ORD-1001', total_value: 1e18, total_value_base: 1e18, items: [{ item_id: 'x', value: 1e12, quantity: 1_000_000, currency: 'EUR' }] });
  const unsigned = storedEvent(10, { chatbot_id: 'shop-1', order_num: 'ORD-1002' });
  await bus.publish(good.slice(0, 10).map(toMessage));
  await bus.publish([encodeSetAsideEvent(forged, 'implausible_quantity'), encodeSetAsideEvent(unsigned, 'missing_signature')]);
  await bus.publish(good.slice(10).map(toMessage));
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();

  t.same(await counts(ch), { raw: 20, distinct: 20 }, 'only the ordinary events are rows');
  const [firsts] = await ch.query<{ n: string }>("SELECT count() AS n FROM order_first_purchases WHERE order_num IN ('ORD-1001', 'ORD-1002')");
  t.equal(Number(firsts.n), 0, 'the order rule never sees them');
  const rejected = await ch.query<Record<string, string>>('SELECT reason, source, chatbot_id, event_id, payload FROM events_rejected ORDER BY reason');
  t.same(rejected.map((r) => [r.reason, r.source, r.chatbot_id, r.event_id]), [
    ['implausible_quantity', 'ingest', 'shop-1', forged.event_id],
    ['missing_signature', 'ingest', 'shop-1', unsigned.event_id],
  ]);
  t.match(JSON.parse(rejected[0].payload), { ...forged, set_aside: 'implausible_quantity' }, 'the payload is the stored event, for the data team');
  t.equal((await deadLetters(bus)).length, 0, 'not poison: nothing dead-lettered');
});

t.test('the fake engine: the same split, and the consumer counts them as rejected', async (t) => {
  const bus = new FakeBus(1, 10);
  const ch = new FakeClickHouse();
  const e = storedEvent(5);
  await bus.publish([encodeSetAsideEvent(e, 'implausible_value'), toMessage(storedEvent(6))]);
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.equal(ch.events.length, 1);
  t.match(ch.rejected, [{ reason: 'implausible_value', source: 'ingest', event_id: e.event_id, chatbot_id: 'bot-1' }]);
  t.equal(bus.deadLetters.length, 0);
  t.equal(consumer.stats().rejected, 1);
});

t.test('the step: an unknown set_aside value is invalid, not a row', async (t) => {
  const step = createSetAsideStep();
  const event = { ...storedEvent(5), set_aside: 'because' };
  const r = step.run({ message: message('{}'), rows: new RowWriter(16), event });
  t.match(r, { kind: 'dead-letter', reason: 'invalid_event' });
  t.notOk((r as { setAside?: unknown }).setAside, 'dead-lettered as poison');
  const plain = storedEvent(6);
  t.match(step.run({ message: message('{}'), rows: new RowWriter(16), event: plain }), { kind: 'ok' });
});
