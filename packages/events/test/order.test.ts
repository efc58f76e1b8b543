import t from 'tap';
import { encodeOrderMessage, isOrderProblem, orderBodyValidator, orderOfMessage, toStoredOrder, type OrderBody, type StoredOrder } from '../src/index.js';

const at = new Date('2026-03-02T00:00:00Z');
const paid: OrderBody = {
  order_id: 'ORD-1', token: 'tok_12345678', placed_at: '2026-03-01T10:00:00Z', currency: 'usd',
  items: [{ item_id: 'p1', quantity: 2, value: 10 }, { item_id: 'p2', quantity: 1, value: 5.5 }], status: 'paid',
};
const stored = (body: OrderBody, receivedAt = at): StoredOrder => {
  const s = toStoredOrder('BOT-1', body, 'api', receivedAt);
  if (isOrderProblem(s)) throw new Error(s.message);
  return s;
};

t.test('the body schema: the documented shape, nothing else', async (t) => {
  t.ok(orderBodyValidator.Check(paid));
  t.ok(orderBodyValidator.Check({ ...paid, token: null, refunds: [{ refund_id: 'r1', at: '2026-03-03T00:00:00Z', amount: 3 }] }));
  t.notOk(orderBodyValidator.Check({ ...paid, status: 'shipped' }), 'an unknown status');
  t.notOk(orderBodyValidator.Check({ ...paid, items: [{ item_id: 'p1', quantity: 0, value: 1 }] }), 'quantity 0');
  t.notOk(orderBodyValidator.Check({ ...paid, extra: 1 }), 'an unknown field');
  t.notOk(orderBodyValidator.Check({ ...paid, token: 'short' }), 'a token outside the tracking rule');
});

t.test('values: gross, refunds, net in EUR; cancelled and refunded are worth nothing', async (t) => {
  const s = stored(paid);
  t.match(s, { chatbot_id: 'bot-1', currency: 'USD', gross_value: 25.5, refunded_value: 0, net_value: 25.5, net_value_base: 23.46, placed_at: '2026-03-01 10:00:00.000', token: 'tok_12345678' });
  const partial = stored({ ...paid, refunds: [{ refund_id: 'r1', at: '2026-03-03T00:00:00Z', amount: 5.5 }] });
  t.match(partial, { refunded_value: 5.5, net_value: 20, net_value_base: 18.4, refund_ats: ['2026-03-03 00:00:00.000'] });
  t.equal(stored({ ...paid, refunds: [{ refund_id: 'r1', at: '2026-03-03T00:00:00Z', amount: 99 }] }).net_value, 0, 'never below 0');
  t.equal(stored({ ...paid, status: 'cancelled' }).net_value, 0);
  t.equal(stored({ ...paid, status: 'refunded' }).net_value_base, 0);
  t.equal(stored({ ...paid, currency: 'XXX' }).net_value_base, null, 'no rate: no EUR value');
  t.equal(stored({ ...paid, token: undefined }).token, '');
});

t.test('times: zoned ISO only', async (t) => {
  const r = toStoredOrder('b', { ...paid, placed_at: '2026-03-01 10:00' }, 'api', at);
  t.ok(isOrderProblem(r) && r.field === 'placed_at');
  const r2 = toStoredOrder('b', { ...paid, refunds: [{ refund_id: 'r', at: 'yesterday', amount: 1 }] }, 'api', at);
  t.ok(isOrderProblem(r2) && r2.field === 'refunds/0/at');
  t.equal(stored({ ...paid, placed_at: '2026-03-01T12:00:00+02:00' }).placed_at, '2026-03-01 10:00:00.000');
});

t.test('the version: the same for a resend, larger for a later state, whatever the arrival', async (t) => {
  const v = (b: OrderBody, when = at) => BigInt(stored(b, when).version);
  t.equal(v(paid), v(paid, new Date('2026-04-01T00:00:00Z')), 'a resend later is the same state');
  const refund1 = { ...paid, refunds: [{ refund_id: 'r1', at: '2026-03-03T00:00:00Z', amount: 5 }] };
  const refund2 = { ...paid, refunds: [...refund1.refunds, { refund_id: 'r2', at: '2026-03-02T00:00:00Z', amount: 1 }] };
  const cancelled = { ...paid, status: 'cancelled' as const };
  const refunded = { ...refund2, status: 'refunded' as const };
  t.ok(v(paid) < v(refund1) && v(refund1) < v(refund2), 'each refund moves it forward, whatever its time');
  t.ok(v(refund2) < v(refunded) && v(refunded) < v(cancelled), 'refunded, then cancelled, win over paid');
  t.ok(v(cancelled) > v(refund2), 'a cancellation without a time still wins over a later refund');
  t.not(v(paid), v({ ...paid, items: [{ item_id: 'p1', quantity: 3, value: 10 }] }), 'two different contents never tie');
  t.ok(v(paid) < 2n ** 64n);
});

t.test('the bus message: keyed per order, read back; an invalid one is null, another message undefined', async (t) => {
  const s = stored(paid);
  const m = encodeOrderMessage(s);
  t.equal(m.key, 'order:bot-1:ORD-1');
  t.same(orderOfMessage(JSON.parse(m.value.toString())), s);
  t.equal(orderOfMessage({ kind: 'order', order: { ...s, version: 'x' } }), null);
  t.equal(orderOfMessage({ event: 'purchase' }), undefined);
});
