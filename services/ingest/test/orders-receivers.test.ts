import { createHmac } from 'node:crypto';
import t from 'tap';
import { refundOfMessage } from '@chatlytics/events';
import { BARE, buildOrders, SHOP_A, SHOP_B, shops } from './orders-helper.js';
import { shopifyOrderCancelled, shopifyOrderPaid, shopifyRefundCreate, woocommerceOrder } from './fixtures/shop-webhooks.js';

const s = shops();
const b64 = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('base64');
const shopify = (chatbot: string, secret: string | undefined, topic: string, payload: object, id = `wh-${Math.random()}`) => {
  const body = JSON.stringify(payload);
  return {
    method: 'POST' as const, url: `/api/integrations/shopify/${chatbot}`, payload: body,
    headers: { 'content-type': 'application/json', 'x-shopify-topic': topic, 'x-shopify-webhook-id': id, 'x-shopify-shop-domain': 'shop-a.myshopify.com', ...(secret ? { 'x-shopify-hmac-sha256': b64(secret, body) } : {}) },
  };
};
const woo = (chatbot: string, secret: string | undefined, topic: string, payload: object) => {
  const body = JSON.stringify(payload);
  return {
    method: 'POST' as const, url: `/api/integrations/woocommerce/${chatbot}`, payload: body,
    headers: { 'content-type': 'application/json', 'x-wc-webhook-topic': topic, 'x-wc-webhook-resource': 'order', 'x-wc-webhook-source': 'https://shop-a.example/', ...(secret ? { 'x-wc-webhook-signature': b64(secret, body) } : {}) },
  };
};

t.test('Shopify: missing, wrong, another chatbot\'s secret, a chatbot without one: 401, nothing stored', async (t) => {
  const b = await buildOrders(s.rows);
  t.teardown(() => b.app.close());
  const tampered = shopify(SHOP_A, s.shopify[SHOP_A], 'orders/paid', shopifyOrderPaid);
  tampered.payload = tampered.payload.replace('199.00', '1.00');
  for (const [what, req] of [
    ['missing', shopify(SHOP_A, undefined, 'orders/paid', shopifyOrderPaid)],
    ['wrong', shopify(SHOP_A, 'shpss_guess', 'orders/paid', shopifyOrderPaid)],
    ["another chatbot's", shopify(SHOP_A, s.shopify[SHOP_B], 'orders/paid', shopifyOrderPaid)],
    ['the body changed after signing', tampered],
    ['a chatbot without a secret', shopify(BARE, s.shopify[SHOP_A], 'orders/paid', shopifyOrderPaid)],
    ['not a chatbot id', shopify('shop-a', s.shopify[SHOP_A], 'orders/paid', shopifyOrderPaid)],
  ] as const) {
    const res = await b.app.inject(req);
    t.equal(res.statusCode, 401, what);
    t.equal(res.json().error.code, 'ORDERS_001', what);
  }
  t.equal(b.bus.calls.length, 0);
});

t.test('Shopify: orders/paid, orders/cancelled and refunds/create of the documented payloads', async (t) => {
  const b = await buildOrders(s.rows);
  t.teardown(() => b.app.close());
  const paid = await b.app.inject(shopify(SHOP_A, s.shopify[SHOP_A], 'orders/paid', shopifyOrderPaid, 'wh-1'));
  t.equal(paid.statusCode, 200, paid.body);
  t.match(b.orders()[0], {
    chatbot_id: SHOP_A, order_id: '820982911946154500', token: 'tok_shopper-0001', placed_at: '2026-03-01 15:00:05.000', currency: 'USD',
    item_ids: ['632910392', '921728736'], item_quantities: [1, 2], item_values: [199, 17], status: 'paid', gross_value: 233, net_value: 233, source: 'shopify',
  });
  const again = await b.app.inject(shopify(SHOP_A, s.shopify[SHOP_A], 'orders/paid', shopifyOrderPaid, 'wh-1'));
  t.same(again.json(), { success: true, ignored: 'duplicate' }, 'a redelivery (same X-Shopify-Webhook-Id) is acknowledged, not stored again');
  t.equal(b.bus.calls.flat().length, 1);

  t.equal((await b.app.inject(shopify(SHOP_A, s.shopify[SHOP_A], 'refunds/create', shopifyRefundCreate))).statusCode, 200);
  const refund = refundOfMessage(JSON.parse(b.bus.calls.flat()[1].value.toString()));
  t.match(refund, { chatbot_id: SHOP_A, order_id: '820982911946154500', refund_id: '929361462', amount: 17, at: '2026-03-03 17:00:00.000', source: 'shopify' });

  t.equal((await b.app.inject(shopify(SHOP_A, s.shopify[SHOP_A], 'orders/cancelled', shopifyOrderCancelled))).statusCode, 200);
  t.match(b.orders()[1], { order_id: '820982911946154500', status: 'cancelled', net_value: 0 });
  t.ok(BigInt(b.orders()[1].version) > BigInt(b.orders()[0].version), 'the cancellation is the later state');

  const other = await b.app.inject(shopify(SHOP_A, s.shopify[SHOP_A], 'products/update', { id: 1 }));
  t.same(other.json(), { success: true, ignored: 'topic' }, 'an authentic webhook of another topic is acknowledged and ignored');
});

t.test('WooCommerce: signatures (missing, wrong, another chatbot\'s → 401); order.created/updated stored; unpaid ignored; the ping', async (t) => {
  const b = await buildOrders(s.rows);
  t.teardown(() => b.app.close());
  for (const [what, req] of [
    ['missing', woo(SHOP_A, undefined, 'order.created', woocommerceOrder)],
    ['wrong', woo(SHOP_A, 'nope', 'order.created', woocommerceOrder)],
    ["another chatbot's", woo(SHOP_A, s.woo[SHOP_B], 'order.created', woocommerceOrder)],
  ] as const) {
    const res = await b.app.inject(req);
    t.equal(res.statusCode, 401, what);
  }
  t.equal(b.bus.calls.length, 0, 'nothing stored');

  const created = await b.app.inject(woo(SHOP_A, s.woo[SHOP_A], 'order.created', woocommerceOrder));
  t.equal(created.statusCode, 200, created.body);
  t.match(b.orders()[0], {
    order_id: '4750', token: 'tok_shopper-0002', placed_at: '2026-03-01 10:55:01.000', currency: 'EUR',
    item_ids: ['23', '24'], item_quantities: [2, 1], item_values: [25, 10], gross_value: 60, status: 'paid', source: 'woocommerce',
  });
  const refunded = { ...woocommerceOrder, date_modified_gmt: '2026-03-04T09:00:00', refunds: [{ id: 4751, reason: 'damaged', total: '-10.00' }] };
  t.equal((await b.app.inject(woo(SHOP_A, s.woo[SHOP_A], 'order.updated', refunded))).statusCode, 200);
  t.match(b.orders()[1], { refund_ids: ['4751'], refunded_value: 10, net_value: 50 });
  const pending = await b.app.inject(woo(SHOP_A, s.woo[SHOP_A], 'order.created', { ...woocommerceOrder, status: 'pending' }));
  t.same(pending.json(), { success: true, ignored: 'status' });
  const ping = await b.app.inject({ method: 'POST', url: `/api/integrations/woocommerce/${SHOP_A}`, payload: 'webhook_id=3', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.same(ping.json(), { success: true, ignored: 'ping' }, 'the unsigned delivery check stores nothing');
  t.equal(b.bus.calls.flat().length, 2);
});
