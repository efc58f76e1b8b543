import fc from 'fast-check';
import t from 'tap';
import {
  ACCEPTED_EVENT_NAMES, EUR_RATES, TRACKING_LIMITS as L, isStoredEvent, normalizeEvent, parseJsonSafely, validateTrackingBody,
} from '../src/index.js';

const ctx = { receivedAt: new Date('2026-05-01T00:00:00Z'), log: { warn() {} } };
const tokenArb = fc.stringMatching(/^[A-Za-z0-9_-]{8,128}$/);
const currencyArb = fc.oneof(fc.constantFrom(...Object.keys(EUR_RATES)), fc.constantFrom('usd', 'XYZ', 'ab', ''));
const itemArb = fc.record({
  item_id: fc.oneof(fc.string({ maxLength: L.itemIdMaxLength }), fc.integer()),
  value: fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 99999 }).map((c) => (c / 100).toFixed(2))),
  quantity: fc.integer({ min: 1, max: 1000 }),
  currency: currencyArb,
}, { requiredKeys: [] });
const validBodyArb = fc.record({
  event: fc.constantFrom(...ACCEPTED_EVENT_NAMES),
  token: tokenArb,
  ab_test: fc.boolean(),
  data: fc.record({
    chatbot_id: fc.string({ maxLength: L.chatbotIdMaxLength }),
    items: fc.array(itemArb, { maxLength: L.itemsMax }),
    orderNum: fc.string({ maxLength: 40 }),
    currency: currencyArb,
    open_way: fc.constantFrom('popup', 'chat_button'),
    url: fc.webUrl(),
    extra: fc.jsonValue({ maxDepth: 3 }),
  }, { requiredKeys: [] }),
}, { requiredKeys: ['event', 'token'] });

t.test('every valid body is accepted and normalises into a row the consumer accepts', async (t) => {
  fc.assert(fc.property(validBodyArb, (body) => {
    const v = validateTrackingBody(body);
    if (!v.ok) throw new Error(`rejected: ${JSON.stringify(v.errors)}`);
    const row = normalizeEvent(v.value, ctx);
    if (!isStoredEvent(row)) return false;
    if (row.event !== (body.event === 'tracktrans' ? 'purchase' : body.event)) return false;
    const expected = (body.data?.items ?? []).reduce((sum, i) => sum + Number(i.value ?? 0) * (i.quantity ?? 1), 0);
    const last = body.token[body.token.length - 1];
    const group = body.ab_test && last === '0' ? 'control' : body.ab_test && last === '1' ? 'test' : null;
    return row.total_value === expected && row.ab_group === group && row.token === body.token;
  }), { numRuns: 200 });
  t.pass('property held');
});

t.test('total_value_base is null exactly when some item currency is outside the table', async (t) => {
  fc.assert(fc.property(validBodyArb, (body) => {
    const v = validateTrackingBody(body);
    if (!v.ok) return false;
    const row = normalizeEvent(v.value, ctx);
    const unknown = row.items.some((i) => !Object.hasOwn(EUR_RATES, i.currency));
    return unknown ? row.total_value_base === null : typeof row.total_value_base === 'number';
  }), { numRuns: 200 });
  t.pass('property held');
});

/** Hostile values in every known position: any JSON value, or the right type just out of range. */
const hostile = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 3000 }),
  fc.constantFrom(null, '', '__proto__', -0, 1e308, -1e308, 2 ** 53 + 1, 'ß', 'ßßß', '\u0000', '0'.repeat(20)),
);
const hostileBodyArb = fc.record({
  event: fc.oneof(fc.constantFrom(...ACCEPTED_EVENT_NAMES), hostile),
  token: fc.oneof(tokenArb, hostile),
  e: hostile,
  u: hostile,
  d: fc.oneof(hostile, fc.jsonValue().map((v) => JSON.stringify(v))),
  ab_test: hostile,
  data: fc.oneof(hostile, fc.record({
    items: fc.oneof(hostile, fc.array(fc.oneof(hostile, fc.record({ id: hostile, item_id: hostile, value: hostile, price: hostile, quantity: hostile, currency: hostile }, { requiredKeys: [] })), { maxLength: 60 })),
    currency: hostile, chatbot_id: hostile, orderNum: hostile, popup_version: hostile, open_way: hostile,
    url: hostile, user_agent: hostile, event_id: hostile,
  }, { requiredKeys: [] })),
}, { requiredKeys: [] });

t.test('no hostile body throws; every refusal is classified; every acceptance is storable', async (t) => {
  fc.assert(fc.property(fc.oneof(hostileBodyArb, fc.anything()), (body) => {
    const v = validateTrackingBody(body);
    if (!v.ok) {
      const classified = (v.code === 'ANALYTICS_005' && v.status === 422) || (v.code !== 'ANALYTICS_005' && v.status === 400);
      return classified && Object.keys(v.errors).length > 0;
    }
    return isStoredEvent(normalizeEvent(v.value, { ...ctx, userAgentHeader: 'x'.repeat(3000) }));
  }), { numRuns: 800 });
  t.pass('property held');
});

t.test('parseJsonSafely fails only with SyntaxError, on any text', async (t) => {
  fc.assert(fc.property(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify(v))), (text) => {
    try {
      parseJsonSafely(text);
      return true;
    } catch (err) {
      return err instanceof SyntaxError;
    }
  }), { numRuns: 1000 });
  t.pass('property held');
});
