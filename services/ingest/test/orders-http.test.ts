import { createHmac } from 'node:crypto';
import t from 'tap';
import { BARE, buildOrders, SHOP_A, SHOP_B, shops } from './orders-helper.js';

const s = shops();
const order = {
  order_id: 'ORD-1001', token: 'tok_visitor-1', placed_at: '2026-03-01T10:00:00Z', currency: 'EUR',
  items: [{ item_id: 'p1', quantity: 2, value: 10 }, { item_id: 'p2', quantity: 1, value: 5 }], status: 'paid',
};
const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
const signed = (chatbot: string, secret: string, body: string) => ({
  'x-chatlytics-chatbot-id': chatbot, 'x-chatlytics-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`, 'content-type': 'application/json',
});

t.test('auth: missing, wrong, malformed, another chatbot\'s credentials: 401 ORDERS_001, nothing published', async (t) => {
  const b = await buildOrders(s.rows);
  t.teardown(() => b.app.close());
  const body = JSON.stringify(order);
  const wrongKey = s.keys[SHOP_A].slice(0, -2) + (s.keys[SHOP_A].endsWith('AA') ? 'BB' : 'AA');
  const cases: [string, Record<string, string>][] = [
    ['no credentials', { 'content-type': 'application/json' }],
    ['a wrong key for the chatbot', bearer(wrongKey)],
    ['not a key at all', bearer('hello')],
    ['Basic instead of Bearer', { authorization: `Basic ${s.keys[SHOP_A]}` }],
    ['B\'s key while naming A', { ...bearer(s.keys[SHOP_B]), 'x-chatlytics-chatbot-id': SHOP_A }],
    ['a key of a chatbot without one', bearer(s.keys[SHOP_A].replace(SHOP_A.replace(/-/g, ''), BARE.replace(/-/g, '')))],
    ['a signature without a chatbot', { 'x-chatlytics-signature': signed(SHOP_A, s.secrets[SHOP_A], body)['x-chatlytics-signature'] }],
    ['A named, signed with B\'s secret', signed(SHOP_A, s.secrets[SHOP_B], body)],
    ['a signature of another body', signed(SHOP_A, s.secrets[SHOP_A], body + ' ')],
    ['a chatbot without a signing secret', signed(BARE, s.secrets[SHOP_A], body)],
    ['an unknown chatbot', signed('0b5f5ad4-3d6c-4c59-9a43-55d1c7a3cfff', s.secrets[SHOP_A], body)],
  ];
  for (const [what, headers] of cases) {
    const res = await b.app.inject({ method: 'POST', url: '/api/orders', headers, payload: body });
    t.equal(res.statusCode, 401, what);
    t.equal(res.json().error.code, 'ORDERS_001', what);
  }
  t.equal(b.bus.calls.length, 0, 'nothing published');
});

t.test('a key or a signature of the chatbot: 200 once durable, the order stored for that chatbot', async (t) => {
  const b = await buildOrders(s.rows);
  t.teardown(() => b.app.close());
  const body = JSON.stringify(order);
  const byKey = await b.app.inject({ method: 'POST', url: '/api/orders', headers: bearer(s.keys[SHOP_A]), payload: body });
  t.equal(byKey.statusCode, 200, byKey.body);
  t.match(byKey.json(), { success: true, order_id: 'ORD-1001', version: /^\d+$/ });
  const bySignature = await b.app.inject({ method: 'POST', url: '/api/orders', headers: signed(SHOP_B, s.secrets[SHOP_B], body), payload: body });
  t.equal(bySignature.statusCode, 200, bySignature.body);
  t.match(b.orders(), [
    { chatbot_id: SHOP_A, order_id: 'ORD-1001', token: 'tok_visitor-1', gross_value: 25, net_value: 25, net_value_base: 25, source: 'api', status: 'paid' },
    { chatbot_id: SHOP_B, order_id: 'ORD-1001' },
  ]);
  t.equal(b.bus.calls.flat()[0].key, `order:${SHOP_A}:ORD-1001`, 'keyed per order: its reports share a partition');
});

t.test('the body: malformed 400 ORDERS_002, invalid 422 ORDERS_003 naming the field (after auth)', async (t) => {
  const b = await buildOrders(s.rows);
  t.teardown(() => b.app.close());
  const post = (payload: string) => b.app.inject({ method: 'POST', url: '/api/orders', headers: bearer(s.keys[SHOP_A]), payload });
  const bad = await post('{"order_id":');
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().error.code, 'ORDERS_002');
  const poisoned = await post('{"__proto__":{"x":1}}');
  t.equal(poisoned.statusCode, 400);
  const invalid = await post(JSON.stringify({ ...order, status: 'shipped', items: [{ item_id: 'p1', quantity: 0, value: 1 }] }));
  t.equal(invalid.statusCode, 422);
  t.equal(invalid.json().error.code, 'ORDERS_003');
  t.ok(Object.keys(invalid.json().errors).some((k) => k.includes('quantity')), JSON.stringify(invalid.json().errors));
  const time = await post(JSON.stringify({ ...order, placed_at: '2026-03-01 10:00' }));
  t.equal(time.statusCode, 422);
  t.match(time.json().errors, { placed_at: [/ISO 8601/] });
  const noAuthBad = await b.app.inject({ method: 'POST', url: '/api/orders', payload: '{' });
  t.equal(noAuthBad.statusCode, 401, 'an unauthenticated body is never parsed');
  t.equal(b.bus.calls.length, 0);
});

t.test('idempotence: a resend is the same state; reordered updates give the same winner; refunds and cancellations net out', async (t) => {
  const b = await buildOrders(s.rows);
  t.teardown(() => b.app.close());
  const post = (o: object) => b.app.inject({ method: 'POST', url: '/api/orders', headers: bearer(s.keys[SHOP_A]), payload: JSON.stringify(o) });
  const refund = { ...order, refunds: [{ refund_id: 'r1', at: '2026-03-03T09:00:00Z', amount: 5 }] };
  const twoRefunds = { ...order, refunds: [...refund.refunds, { refund_id: 'r2', at: '2026-03-02T09:00:00Z', amount: 10 }] };
  const cancelled = { ...order, status: 'cancelled' };
  const winner = (versions: { version: string; net_value: number; status: string }[]) => versions.reduce((a, c) => (BigInt(c.version) > BigInt(a.version) ? c : a));

  for (const o of [refund, order, refund, twoRefunds, order]) t.equal((await post(o)).statusCode, 200);
  const first = b.orders();
  t.equal(first[0].version, first[2].version, 'a resend is the same version');
  t.match(winner(first), { net_value: 10, refunded_value: 15, status: 'paid' }, 'the refunds subtract from the order');
  t.equal(winner(first).version, winner([...first].reverse()).version, 'any arrival order, the same winner');

  t.equal((await post(cancelled)).statusCode, 200);
  t.match(winner(b.orders()), { status: 'cancelled', net_value: 0 }, 'a cancellation wins over every paid state and is worth nothing');
  t.equal((await post(order)).statusCode, 200);
  t.match(winner(b.orders()), { status: 'cancelled' }, 'a late resend of the paid state does not undo it');
});

t.test('503 ORDERS_004 with Retry-After when the bus or the credentials are unavailable', async (t) => {
  const b = await buildOrders(s.rows);
  t.teardown(() => b.app.close());
  b.bus.failure = Object.assign(new Error('disk full /var/secret/path'), { retriable: true });
  const res = await b.app.inject({ method: 'POST', url: '/api/orders', headers: bearer(s.keys[SHOP_A]), payload: JSON.stringify(order) });
  t.equal(res.statusCode, 503);
  t.equal(res.headers['retry-after'], '5');
  t.equal(res.json().error.code, 'ORDERS_004');
  t.notMatch(res.body, /secret|disk/, 'no internals');
  b.bus.failure = undefined;
  b.failReads(true);
  const unread = await b.app.inject({ method: 'POST', url: '/api/orders', headers: bearer(s.keys[SHOP_A]), payload: JSON.stringify(order) });
  t.equal(unread.statusCode, 503, 'fails closed when the credentials cannot be read');
});
