import { createHmac } from 'node:crypto';
import t from 'tap';
import { createCachedPolicySource } from '../src/policy/policy-cache.js';
import type { ChatbotPolicyRow } from '../src/policy/chatbot-policy.js';
import { buildIngest, metricValue, TOKEN, type Built } from './helper.js';

const SHOP = '0b5f5ad4-3d6c-4c59-9a43-55d1c7a3c001';
const OPEN = '0b5f5ad4-3d6c-4c59-9a43-55d1c7a3c002';
const SIGNED = '0b5f5ad4-3d6c-4c59-9a43-55d1c7a3c003';
const SECRET = 'cps_test-secret-of-the-signed-shop';

const rows = new Map<string, ChatbotPolicyRow>([
  [SHOP, { allowedOrigins: ['https://shop.example', '*.shop.example'], maxPurchaseEur: 1_000, requireSignedPurchases: false, signingSecret: null }],
  [OPEN, { allowedOrigins: [], maxPurchaseEur: 100_000, requireSignedPurchases: false, signingSecret: null }],
  [SIGNED, { allowedOrigins: [], maxPurchaseEur: 100_000, requireSignedPurchases: true, signingSecret: SECRET }],
]);

async function build(t: { teardown(fn: () => Promise<void>): void }): Promise<Built> {
  const policies = createCachedPolicySource({ load: async (id) => rows.get(id) ?? null, log: { warn: () => undefined } });
  const built = await buildIngest({ policies });
  t.teardown(() => built.app.close());
  return built;
}

/** Every message the bus received, parsed as it travels (a set-aside one carries `set_aside`). */
const published = (b: Built) => b.bus.calls.flat().map((m) => JSON.parse(m.value.toString('utf8')) as Record<string, unknown>);

const purchase = (chatbotId: string, data: Record<string, unknown>) => ({ event: 'purchase', token: TOKEN, data: { chatbot_id: chatbotId, ...data } });

t.test('allowed origins: a browser event from another origin is refused 403 ANALYTICS_003, the shop\'s own and servers are not', async (t) => {
  const b = await build(t);
  const post = (body: object, origin?: string, url = '/api/analytics/track') =>
    b.app.inject({ method: 'POST', url, payload: body, headers: origin ? { origin } : {} });
  const visitor = (chatbotId: string) => ({ event: 'visitor', token: TOKEN, data: { chatbot_id: chatbotId } });

  const evil = await post(visitor(SHOP), 'https://evil.example');
  t.equal(evil.statusCode, 403);
  t.same(evil.json(), { success: false, error: { code: 'ANALYTICS_003', message: 'Origin not allowed.' } });
  const get = await b.app.inject({ method: 'GET', url: `/api/events/track?e=visitor&u=${TOKEN}&d=${encodeURIComponent(JSON.stringify({ chatbot_id: SHOP }))}`, headers: { origin: 'https://evil.example' } });
  t.equal(get.statusCode, 403, 'the GET form too');
  t.equal((await post(visitor(SHOP), 'null')).statusCode, 403, 'a sandboxed page (Origin: null) is not the shop');
  t.equal(b.bus.calls.length, 0, 'nothing refused reached the bus');

  t.equal((await post(visitor(SHOP), 'https://shop.example')).statusCode, 200, 'the shop itself');
  t.equal((await post(visitor(SHOP), 'https://eu.shop.example')).statusCode, 200, 'a subdomain entry');
  t.equal((await post(visitor(SHOP))).statusCode, 200, 'a server (no Origin) is not a browser');
  t.equal((await post(visitor(OPEN), 'https://evil.example')).statusCode, 200, 'a chatbot without a list allows any origin');
  t.equal((await post(visitor('not-a-chatbot'), 'https://evil.example')).statusCode, 200, 'an unknown chatbot has the defaults');

  const batch = await post({ events: [visitor(OPEN), visitor(SHOP)] }, 'https://evil.example', '/api/analytics/batch');
  t.equal(batch.statusCode, 403, 'a batch with one event of a chatbot refusing the origin is refused whole');
  t.equal(batch.json().error.code, 'ANALYTICS_003');
  const okBatch = await post({ events: [visitor(OPEN), visitor(SHOP)] }, 'https://shop.example', '/api/analytics/batch');
  t.same(okBatch.json(), { success: true, accepted: 2, rejected: [] });
  t.equal(published(b).length, 7);
  t.equal(await metricValue(b.registry, 'chatlytics_ingest_events_rejected_total', { reason: 'ANALYTICS_003' }), 4);
});

t.test('plausibility: the 1e18 purchase and one over the chatbot\'s EUR cap are accepted but set aside; a normal one counts', async (t) => {
  const b = await build(t);
  const send = async (body: object) => {
    const res = await b.app.inject({ method: 'POST', url: '/api/analytics/track', payload: body });
    t.equal(res.statusCode, 200, 'tracking answers as usual: the sender learns nothing');
  };
  await send(purchase(OPEN, { orderNum: 'A-1', items: [{ item_id: 'x', value: 1e12, quantity: 1_000_000 }] }));
  await send(purchase(OPEN, { orderNum: 'A-2', items: [{ item_id: 'x', value: 150_000, quantity: 1 }] }));
  await send(purchase(OPEN, { orderNum: 'A-3', items: [{ item_id: 'x', value: 1, quantity: 10_001 }] }));
  await send(purchase(OPEN, { orderNum: 'A-4', items: [{ item_id: 'x', value: -200_000, quantity: 1 }] }));
  await send(purchase(SHOP, { orderNum: 'S-1', currency: 'USD', items: [{ item_id: 'x', value: 1_100, quantity: 1 }] }));
  await send(purchase(SHOP, { orderNum: 'S-2', currency: 'USD', items: [{ item_id: 'x', value: 1_000, quantity: 1 }] }));
  await send(purchase(OPEN, { orderNum: 'A-5', items: [{ item_id: 'x', value: 99_999, quantity: 1 }, { item_id: 'y', value: 1, quantity: 1 }] }));
  await send({ event: 'visitor', token: TOKEN, data: { chatbot_id: OPEN, items: [{ value: 1e12, quantity: 1_000_000 }] } });
  const reasons = published(b).map((m) => [m.order_num, m.set_aside]);
  t.same(reasons, [
    ['A-1', 'implausible_quantity'],
    ['A-2', 'implausible_value'],
    ['A-3', 'implausible_quantity'],
    ['A-4', 'negative_amount'],
    ['S-1', 'implausible_value'],
    ['S-2', undefined],
    ['A-5', undefined],
    ['', undefined],
  ], 'USD 1,100 = 1,012 EUR is over the shop\'s 1,000 cap, USD 1,000 = 920 EUR is not; a negative amount never counts; only purchases are checked');
  const first = published(b)[0];
  t.equal(Object.keys(first).at(-1), 'set_aside', 'the reason is the last key: the consumer\'s fast path declines the message');
  t.equal(await metricValue(b.registry, 'chatlytics_ingest_purchases_set_aside_total', { reason: 'implausible_value' }), 2);
  t.equal(await metricValue(b.registry, 'chatlytics_ingest_purchases_set_aside_total', { reason: 'negative_amount' }), 1);
  t.equal(await metricValue(b.registry, 'chatlytics_ingest_purchases_set_aside_total', { reason: 'implausible_quantity' }), 2);
});

/** Exactly the Node snippet of services/ingest/README.md ("Verified purchases"). */
function signLikeTheReadme(secret: string, chatbotId: string, order: { number: string; currency: string; items: { price: number; quantity: number }[] }) {
  const total = order.items.reduce((sum, item) => sum + item.price * item.quantity, 0);
  const text = [chatbotId, order.number, total.toFixed(2), order.currency].join('\n');
  return createHmac('sha256', secret).update(text).digest('hex');
}

t.test('verified purchases: with signing required only a valid signature counts; unsigned or wrongly signed ones are set aside', async (t) => {
  const b = await build(t);
  const order = { number: 'ORD-1001', currency: 'EUR', items: [{ price: 19.99, quantity: 3 }, { price: 5.1, quantity: 1 }] };
  const items = order.items.map((i, n) => ({ item_id: `p${n}`, value: i.price, quantity: i.quantity }));
  const signature = signLikeTheReadme(SECRET, SIGNED, order);
  const send = (chatbotId: string, data: Record<string, unknown>) =>
    b.app.inject({ method: 'POST', url: '/api/analytics/track', payload: purchase(chatbotId, { orderNum: 'ORD-1001', currency: 'EUR', items, ...data }) });

  await send(SIGNED, {});
  await send(SIGNED, { signature: 'f'.repeat(64) });
  await send(SIGNED, { signature: signLikeTheReadme('another-secret', SIGNED, order) });
  await send(SIGNED, { signature, items: [{ item_id: 'p0', value: 19.99, quantity: 30 }] });
  await send(SIGNED, { signature, orderNum: 'ORD-1002' });
  await send(SIGNED, { signature });
  await send(SIGNED, { signature: signature.toUpperCase() });
  await send(OPEN, {});
  await send(OPEN, { signature: 'not even hex' });
  t.same(published(b).map((m) => m.set_aside ?? 'counts'), [
    'missing_signature', 'unverified_signature', 'unverified_signature',
    'unverified_signature', 'unverified_signature',
    'counts', 'counts', 'counts', 'counts',
  ], 'another total or order number breaks the signature; without the setting the signature is ignored');
});

/**
 * The README's worked example (chatbot SIGNED, order ORD-1001, 19.99 × 3 + 5.10 EUR, secret
 * `cps_example-secret`): the PHP snippet printed this same hex when checked by hand.
 */
const README_VECTOR = '2e62957a159217d2197b47d3d46621c1d5bddd84173a936edfe41c58cf2064fe';

t.test('a fixed test vector: the README\'s example signs to the documented hex, and that signature counts', async (t) => {
  const { purchaseSigningText, signPurchase } = await import('@chatlytics/events');
  const text = purchaseSigningText({ chatbot_id: SIGNED, order_num: 'ORD-1001', total_value: 19.99 * 3 + 5.1, currency: 'EUR' });
  t.equal(text, `${SIGNED}\nORD-1001\n65.07\nEUR`, 'float noise in the sum disappears in the two decimals');
  t.equal(signPurchase('cps_example-secret', text), README_VECTOR);
  t.equal(signLikeTheReadme('cps_example-secret', SIGNED, { number: 'ORD-1001', currency: 'EUR', items: [{ price: 19.99, quantity: 3 }, { price: 5.1, quantity: 1 }] }), README_VECTOR);
});

t.test('a negative value never counts, signed or not, on any chatbot', async (t) => {
  const b = await build(t);
  const order = { number: 'NEG-1', currency: 'EUR', items: [{ price: -499, quantity: 1 }] };
  const send = (chatbotId: string, data: Record<string, unknown>) =>
    b.app.inject({ method: 'POST', url: '/api/analytics/track', payload: purchase(chatbotId, { orderNum: 'NEG-1', currency: 'EUR', ...data }) });
  await send(OPEN, { items: [{ item_id: 'x', value: -499, quantity: 1 }] });
  await send(OPEN, { items: [{ item_id: 'x', value: 10, quantity: 1 }, { item_id: 'y', value: -5, quantity: 1 }] });
  await send(SIGNED, { items: [{ item_id: 'x', value: -499, quantity: 1 }], signature: signLikeTheReadme(SECRET, SIGNED, order) });
  await send(OPEN, { items: [{ item_id: 'x', value: 0, quantity: 1 }] });
  t.same(published(b).map((m) => m.set_aside ?? 'counts'), ['negative_amount', 'negative_amount', 'negative_amount', 'counts'],
    'a refund is not a purchase; a free item is one');
});

/** Exactly the Node snippet of services/ingest/README.md ("Verified purchases", version 2). */
function signV2LikeTheReadme(secret: string, chatbotId: string, order: { number: string; currency: string; items: { id: string; price: number; quantity: number; currency?: string }[] }) {
  const num = (n: number) => n.toFixed(2);
  const lines = ['v2', chatbotId, order.number, order.currency,
    ...order.items.map((item) => [item.id, item.quantity, num(item.price), item.currency ?? order.currency].join('|'))];
  return 'v2=' + createHmac('sha256', secret).update(lines.join('\n')).digest('hex');
}

t.test('version 2 signatures bind every item: another item, quantity, value or currency is set aside', async (t) => {
  const b = await build(t);
  const order = { number: 'ORD-2001', currency: 'EUR', items: [{ id: 'p0', price: 19.99, quantity: 3 }, { id: 'p1', price: 5.1, quantity: 1, currency: 'GBP' }] };
  const items = order.items.map((i) => ({ item_id: i.id, value: i.price, quantity: i.quantity, ...(i.currency ? { currency: i.currency } : {}) }));
  const signature = signV2LikeTheReadme(SECRET, SIGNED, order);
  const send = (data: Record<string, unknown>) =>
    b.app.inject({ method: 'POST', url: '/api/analytics/track', payload: purchase(SIGNED, { orderNum: 'ORD-2001', currency: 'EUR', items, signature, ...data }) });
  await send({});
  await send({ signature: `v2=${signature.slice(3).toUpperCase()}` });
  await send({ items: [items[1], items[0]] });
  await send({ items: [items[0], { ...items[1], currency: 'EUR' }] });
  await send({ items: [{ ...items[0], quantity: 2 }, { ...items[1], value: 5.1 + 19.99 }] });
  await send({ items: [{ ...items[0], item_id: 'p9' }, items[1]] });
  await send({ items: [items[0]] });
  await send({ signature: signature.slice(3) });
  await send({ currency: 'USD' });
  t.same(published(b).map((m) => m.set_aside ?? 'counts'), [
    'counts', 'counts',
    'unverified_signature', 'unverified_signature', 'unverified_signature', 'unverified_signature', 'unverified_signature',
    'unverified_signature', 'unverified_signature',
  ], 'the same total re-itemised, reordered or in another currency breaks it; a v2 text is no v1 signature');
});

t.test('the review\'s re-itemised purchase: a total signed for 10.00 EUR sent with 500,000 GBP and -499,990 EUR does not count', async (t) => {
  const b = await build(t);
  const signed = { number: 'ORD-SEC-2', currency: 'EUR', items: [{ price: 10, quantity: 1 }] };
  const v1 = signLikeTheReadme(SECRET, SIGNED, signed);
  const send = (items: object[]) => b.app.inject({ method: 'POST', url: '/api/analytics/track',
    payload: purchase(SIGNED, { orderNum: 'ORD-SEC-2', currency: 'EUR', items, signature: v1 }) });
  await send([{ item_id: 'a', value: 500000, currency: 'GBP' }, { item_id: 'b', value: -499990, currency: 'EUR' }]);
  await send([{ item_id: 'a', value: 5, currency: 'GBP' }, { item_id: 'b', value: 5, currency: 'EUR' }]);
  await send([{ item_id: 'a', value: 10 }]);
  t.same(published(b).map((m) => m.set_aside ?? 'counts'), ['negative_amount', 'unverified_signature', 'counts'],
    'a version 1 signature counts only for items all in the order\'s currency');
});

t.test('an item id holding | or a line break cannot be signed in version 2', async (t) => {
  const { purchaseSigningTextV2 } = await import('@chatlytics/events');
  const event = { chatbot_id: SIGNED, order_num: 'O', currency: 'EUR', items: [{ item_id: 'a|1|1.00|EUR', value: 1, quantity: 1, currency: 'EUR' }] };
  t.equal(purchaseSigningTextV2(event), undefined);
  t.equal(purchaseSigningTextV2({ ...event, items: [{ ...event.items[0], item_id: 'a\nb' }] }), undefined);
  t.equal(purchaseSigningTextV2({ ...event, currency: '', items: [{ ...event.items[0], item_id: 'a', currency: '' }] }), `v2\n${SIGNED}\nO\nEUR\na|1|1.00|EUR`);
});

/** The README's worked example for version 2 (Python's hmac, written independently, gives the same). */
const README_VECTOR_V2 = 'v2=8ae5dd0fab9d16643361af181c3704a4ceb715af8915a219735d29559a8c5a31';

t.test('a fixed test vector for version 2: the README\'s example signs to the documented hex', async (t) => {
  const order = { number: 'ORD-1001', currency: 'EUR', items: [{ id: 'p0', price: 19.99, quantity: 3 }, { id: 'p1', price: 5.1, quantity: 1 }] };
  t.equal(signV2LikeTheReadme('cps_example-secret', SIGNED, order), README_VECTOR_V2);
  const { purchaseSigningTextV2, signPurchase, SIGNATURE_V2_PREFIX } = await import('@chatlytics/events');
  const text = purchaseSigningTextV2({ chatbot_id: SIGNED, order_num: 'ORD-1001', currency: 'EUR', items: order.items.map((i) => ({ item_id: i.id, value: i.price, quantity: i.quantity, currency: 'EUR' })) });
  t.equal(text, `v2\n${SIGNED}\nORD-1001\nEUR\np0|3|19.99|EUR\np1|1|5.10|EUR`);
  t.equal(SIGNATURE_V2_PREFIX + signPurchase('cps_example-secret', text!), README_VECTOR_V2, 'the endpoint computes the same');
});
