import t from 'tap';
import { encodeOrderMessage, encodeRefundMessage, isOrderProblem, toStoredOrder, type OrderBody, type StoredOrder } from '@chatlytics/events';
import { events, toMessage } from './events.js';
import { consumerFor, until } from './helpers.js';
import { counts, deadLetters, embeddedBus, migratedChdb, tempDir } from './real-engines.js';
import { FakeBus, FakeClickHouse } from './fakes.js';

// Orders travel on the events stream beside the events and end in `orders`, never `events`;
// the latest state per order wins whatever order the reports arrive in.
const chdbDir = tempDir('consumer-orders-chdb-');
t.teardown(() => chdbDir.remove());

const base: OrderBody = { order_id: 'ORD-1', token: 'tok_12345678', placed_at: '2026-03-01T10:00:00Z', currency: 'EUR', items: [{ item_id: 'p1', quantity: 2, value: 10 }], status: 'paid' };
const state = (body: OrderBody): StoredOrder => {
  const s = toStoredOrder('bot-1', body, 'api', new Date());
  if (isOrderProblem(s)) throw new Error(s.message);
  return s;
};
const paid = state(base);
const refunded = state({ ...base, refunds: [{ refund_id: 'r1', at: '2026-03-02T00:00:00Z', amount: 5 }] });
const cancelled = state({ ...base, status: 'cancelled' });
const other = state({ ...base, order_id: 'ORD-2' });

t.test('orders into chdb: latest state wins under reordering and resends; events unaffected', async (t) => {
  const busDir = tempDir('consumer-orders-bus-');
  const ch = await migratedChdb(chdbDir.dir);
  const bus = await embeddedBus(busDir.dir);
  t.teardown(async () => { await bus.close(); await ch.close(); busDir.remove(); });

  const good = events(10);
  await bus.publish([encodeOrderMessage(cancelled), ...good.slice(0, 5).map(toMessage), encodeOrderMessage(paid)]);
  const alone = { chatbot_id: 'bot-1', order_id: 'ORD-2', refund_id: 'r9', at: '2026-03-04 00:00:00.000', amount: 3, source: 'shopify' as const, received_at: '2026-03-04 00:00:01.000' };
  await bus.publish([encodeOrderMessage(refunded), encodeOrderMessage(paid), encodeOrderMessage(other), encodeRefundMessage(alone), ...good.slice(5).map(toMessage)]);
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();

  t.same(await counts(ch), { raw: 10, distinct: 10 }, 'the events are rows of events, the orders are not');
  const rows = await ch.query<{ order_id: string; status: string; net_value: number }>('SELECT order_id, status, net_value FROM orders FINAL ORDER BY order_id');
  t.same(rows.map((r) => [r.order_id, r.status, Number(r.net_value)]), [['ORD-1', 'cancelled', 0], ['ORD-2', 'paid', 20]]);
  const [arg] = await ch.query<{ status: string }>("SELECT argMax(status, version) AS status FROM orders WHERE order_id = 'ORD-1'");
  t.equal(arg.status, 'cancelled', 'argMax by version reads the same');
  const refunds = await ch.query<{ order_id: string; refund_id: string; amount: number }>('SELECT order_id, refund_id, max(amount) AS amount FROM order_refunds GROUP BY order_id, refund_id ORDER BY order_id');
  t.same(refunds.map((r) => [r.order_id, r.refund_id, Number(r.amount)]), [['ORD-1', 'r1', 5], ['ORD-2', 'r9', 3]], 'refunds from a state and a refund reported alone');
  t.equal((await deadLetters(bus)).length, 0);
});

t.test("each order is stored with its token's id when token_ids has it, 0 when not yet (the statistics look those up)", async (t) => {
  const dir = tempDir('consumer-orders-ids-');
  const busDir = tempDir('consumer-orders-ids-bus-');
  const ch = await migratedChdb(dir.dir);
  const bus = await embeddedBus(busDir.dir);
  t.teardown(async () => { await bus.close(); await ch.close(); busDir.remove(); dir.remove(); });
  const visits = events(3);
  const known = state({ ...base, order_id: 'K-1', token: visits[1].token });
  const ahead = state({ ...base, order_id: 'U-1', token: 'tok_not_seen_yet' });
  const none = state({ ...base, order_id: 'N-1', token: undefined });
  // The visitor's events in the same flush as its order: their ids are stored before the order.
  await bus.publish([...visits.map(toMessage), encodeOrderMessage(known), encodeOrderMessage(ahead), encodeOrderMessage(none)]);
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  const [{ id }] = await ch.query<{ id: string }>("SELECT toString(min(token_id)) AS id FROM token_ids WHERE chatbot_id = 'bot-1' AND token = {t:String}", { t: visits[1].token });
  t.not(id, '0');
  const rows = await ch.query<{ order_id: string; token_id: string }>('SELECT order_id, toString(token_id) AS token_id FROM orders ORDER BY order_id');
  t.same(rows.map((r) => [r.order_id, r.token_id]), [['K-1', id], ['N-1', '0'], ['U-1', '0']]);
});

t.test('the fake engine: orders inserted before the commit, an invalid order message is poison', async (t) => {
  const bus = new FakeBus(1, 10);
  const ch = new FakeClickHouse();
  const bad = { key: 'order:x', value: Buffer.from(JSON.stringify({ kind: 'order', order: { ...paid, status: 'lost' } })) };
  await bus.publish([encodeOrderMessage(paid), bad, toMessage(events(1)[0])]);
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.match(ch.tables.get('orders'), [{ order_id: 'ORD-1', status: 'paid', version: paid.version }]);
  t.equal(ch.events.length, 1);
  t.match(ch.rejected, [{ reason: 'invalid_event' }]);
  t.match(bus.deadLetters, [{ key: 'order:x' }]);
});

t.test('ClickHouse refusing the orders insert leaves the batch uncommitted until it succeeds', async (t) => {
  const bus = new FakeBus(1, 10);
  const ch = new FakeClickHouse();
  let refusals = 2;
  ch.beforeInsert = (table) => {
    if (table === 'orders' && refusals-- > 0) throw Object.assign(new Error('orders down'), { retriable: true });
  };
  await bus.publish([encodeOrderMessage(paid)]);
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.equal(ch.tables.get('orders')?.length, 1, 'stored once it was acknowledged');
});
