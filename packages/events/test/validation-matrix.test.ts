import t from 'tap';
import { TRACKING_LIMITS as L, TRACKED_EVENTS, validateTrackingBody } from '../src/index.js';

/** Expected outcome: accepted, a 400 code, or a 422 naming exactly these fields. */
type Expect = 'ok' | 'ANALYTICS_001' | 'ANALYTICS_002' | { fields: string[] };
type Row = [name: string, body: unknown, expect: Expect];

const token = 'tok_abc-123';
const base = (data?: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ event: 'purchase', token, ...(data === undefined ? {} : { data }), ...extra });
const item = (fields: Record<string, unknown>) => base({ items: [fields] });
const s = (n: number, ch = 'a') => ch.repeat(n);
/** data whose JSON encoding is exactly n bytes: {"p":"…"} is 8 bytes of overhead. */
const dataOfBytes = (n: number) => ({ p: 'x'.repeat(n - 8) });
/** The same size with 3-byte UTF-8 characters: the limit counts bytes, not characters. */
const dataOfUtf8Bytes = (n: number) => ({ p: '€'.repeat(Math.floor((n - 8) / 3)) + 'x'.repeat((n - 8) % 3) });

const rows: Row[] = [
  ['minimal valid body', { event: 'visitor', token }, 'ok'],
  ['every allowed event type', null, 'ok'],
  ['tracktrans alias', { event: 'tracktrans', token }, 'ok'],
  ['unknown event type', { event: 'page_view', token }, { fields: ['event'] }],
  ['event case-sensitive', { event: 'Visitor', token }, { fields: ['event'] }],
  ['event at 50 chars (unknown)', { event: s(50), token }, { fields: ['event'] }],
  ['event at 51 chars', { event: s(51), token }, { fields: ['event'] }],
  ['event missing', { token }, { fields: ['event'] }],
  ['event empty', { event: '', token }, { fields: ['event'] }],
  ['event not a string', { event: 5, token }, { fields: ['event'] }],
  ['token at 8', { event: 'visitor', token: s(8) }, 'ok'],
  ['token at 7', { event: 'visitor', token: s(7) }, { fields: ['token'] }],
  ['token at 128', { event: 'visitor', token: s(128) }, 'ok'],
  ['token at 129', { event: 'visitor', token: s(129) }, { fields: ['token'] }],
  ['token with every allowed character class', { event: 'visitor', token: 'aZ09_-aZ' }, 'ok'],
  ['token with a dot', { event: 'visitor', token: 'abcd.efgh' }, { fields: ['token'] }],
  ['token with a space', { event: 'visitor', token: 'abcd efgh' }, { fields: ['token'] }],
  ['token with non-ASCII letter', { event: 'visitor', token: 'abcdéfgh' }, { fields: ['token'] }],
  ['token missing', { event: 'visitor' }, { fields: ['token'] }],
  ['both missing', {}, { fields: ['event', 'token'] }],
  ['no body at all', undefined, { fields: ['event', 'token'] }],
  ['legacy e/u', { e: 'visitor', u: token }, 'ok'],
  ['legacy d as JSON text', { e: 'visitor', u: token, d: '{"chatbot_id":"c1"}' }, 'ok'],
  ['legacy d empty', { e: 'visitor', u: token, d: '' }, 'ok'],
  ['legacy d not JSON', { e: 'visitor', u: token, d: '{oops' }, 'ANALYTICS_001'],
  ['legacy d JSON array', { e: 'visitor', u: token, d: '[1,2]' }, 'ANALYTICS_001'],
  ['legacy d JSON string', { e: 'visitor', u: token, d: '"x"' }, 'ANALYTICS_001'],
  ['legacy d poisoned', { e: 'visitor', u: token, d: '{"__proto__":{"admin":true}}' }, 'ANALYTICS_001'],
  ['legacy d constructor.prototype', { e: 'visitor', u: token, d: '{"a":{"constructor":{"prototype":{"x":1}}}}' }, 'ANALYTICS_001'],
  ['body an array', [], 'ANALYTICS_001'],
  ['body a string', 'visitor', 'ANALYTICS_001'],
  ['body null', null, 'ANALYTICS_001'],
  ['data a string', base('x' as never), 'ANALYTICS_001'],
  ['data an array', { event: 'visitor', token, data: [] }, 'ANALYTICS_001'],
  ['data a number', { event: 'visitor', token, data: 1 }, 'ANALYTICS_001'],
  ['data null means absent', { event: 'visitor', token, data: null }, 'ok'],
  [`data at ${L.dataMaxBytes} bytes`, base(dataOfBytes(L.dataMaxBytes)), 'ok'],
  [`data at ${L.dataMaxBytes + 1} bytes`, base(dataOfBytes(L.dataMaxBytes + 1)), 'ANALYTICS_002'],
  ['data at the byte limit in 3-byte characters', base(dataOfUtf8Bytes(L.dataMaxBytes)), 'ok'],
  ['data over the byte limit in 3-byte characters', base(dataOfUtf8Bytes(L.dataMaxBytes + 1)), 'ANALYTICS_002'],
  ['unknown data fields are kept', base({ anything: { nested: [1, 2] }, label: 'x' }), 'ok'],
  ['chatbot_id at 512', base({ chatbot_id: s(512) }), 'ok'],
  ['chatbot_id at 513', base({ chatbot_id: s(513) }), { fields: ['data.chatbot_id'] }],
  ['chatbot_id a number', base({ chatbot_id: 7 }), { fields: ['data.chatbot_id'] }],
  ['orderNum at 512', base({ orderNum: s(512) }), 'ok'],
  ['orderNum at 513', base({ orderNum: s(513) }), { fields: ['data.orderNum'] }],
  ['orderNum numeric', base({ orderNum: 1234 }), 'ok'],
  ['url at 2048', base({ url: s(2048) }), 'ok'],
  ['url at 2049', base({ url: s(2049) }), { fields: ['data.url'] }],
  ['user_agent at 1024', base({ user_agent: s(1024) }), 'ok'],
  ['user_agent at 1025', base({ user_agent: s(1025) }), { fields: ['data.user_agent'] }],
  ['currency at 3', base({ currency: 'USD' }), 'ok'],
  ['currency at 4', base({ currency: 'USDX' }), { fields: ['data.currency'] }],
  ['open_way popup', base({ open_way: 'popup' }), 'ok'],
  ['open_way chat_button', base({ open_way: 'chat_button' }), 'ok'],
  ['open_way other', base({ open_way: 'email' }), { fields: ['data.open_way'] }],
  ['popup_version number', base({ popup_version: 3 }), 'ok'],
  ['popup_version object', base({ popup_version: {} }), { fields: ['data.popup_version'] }],
  ['popup_version 100 characters', base({ popup_version: 'v'.repeat(L.popupVersionMaxLength) }), 'ok'],
  ['popup_version 101 characters', base({ popup_version: 'v'.repeat(L.popupVersionMaxLength + 1) }), { fields: ['data.popup_version'] }],
  ['items at 50', base({ items: Array.from({ length: L.itemsMax }, () => ({ value: 1 })) }), 'ok'],
  ['items at 51', base({ items: Array.from({ length: L.itemsMax + 1 }, () => ({ value: 1 })) }), { fields: ['data.items'] }],
  ['items not an array', base({ items: { value: 1 } }), { fields: ['data.items'] }],
  ['item not an object', base({ items: [5] }), { fields: ['data.items.0'] }],
  ['item_id at 128', item({ item_id: s(128) }), 'ok'],
  ['item_id at 129', item({ item_id: s(129) }), { fields: ['data.items.0.item_id'] }],
  ['id alias at 128', item({ id: s(128) }), 'ok'],
  ['id alias at 129', item({ id: s(129) }), { fields: ['data.items.0.id'] }],
  ['numeric item id', item({ id: 12345 }), 'ok'],
  ['value numeric string', item({ value: '19.99' }), 'ok'],
  ['value negative', item({ value: -5 }), 'ok'],
  ['value not numeric text', item({ value: '19,99' }), { fields: ['data.items.0.value'] }],
  ['value exponent text', item({ value: '1e3' }), { fields: ['data.items.0.value'] }],
  ['value at the guard', item({ value: L.valueMaxAbs }), 'ok'],
  ['value over the guard', item({ value: L.valueMaxAbs * 10 }), { fields: ['data.items.0.value'] }],
  ['price alias', item({ price: 3 }), 'ok'],
  ['price alias invalid', item({ price: true }), { fields: ['data.items.0.price'] }],
  ['quantity at 1', item({ quantity: 1 }), 'ok'],
  ['quantity at 0', item({ quantity: 0 }), { fields: ['data.items.0.quantity'] }],
  ['quantity fractional', item({ quantity: 1.5 }), { fields: ['data.items.0.quantity'] }],
  ['quantity integer text', item({ quantity: '2' }), 'ok'],
  ['quantity at the guard', item({ quantity: L.quantityMax }), 'ok'],
  ['quantity over the guard', item({ quantity: L.quantityMax + 1 }), { fields: ['data.items.0.quantity'] }],
  ['item currency at 3', item({ currency: 'gbp' }), 'ok'],
  ['item currency at 4', item({ currency: 'GBPX' }), { fields: ['data.items.0.currency'] }],
  ['ab_test true', base(undefined, { ab_test: true }), 'ok'],
  ['ab_test "1" (GET form)', base(undefined, { ab_test: '1' }), 'ok'],
  ['ab_test "yes"', base(undefined, { ab_test: 'yes' }), { fields: ['ab_test'] }],
  ['several bad fields at once', { event: 'nope', token: 'x', data: { url: s(2049), items: [{ quantity: 0 }] } },
    { fields: ['event', 'token', 'data.url', 'data.items.0.quantity'] }],
];

for (const [name, body, expect] of rows) {
  t.test(name, async (t) => {
    const bodies = name === 'every allowed event type' ? TRACKED_EVENTS.map((event) => ({ event, token })) : [body];
    for (const b of bodies) {
      const result = validateTrackingBody(b);
      if (expect === 'ok') {
        t.ok(result.ok, 'accepted');
        if (!result.ok) t.comment(JSON.stringify(result.errors));
      } else if (typeof expect === 'string') {
        t.notOk(result.ok);
        if (!result.ok) {
          t.equal(result.code, expect);
          t.equal(result.status, 400);
        }
      } else {
        t.notOk(result.ok);
        if (!result.ok) {
          t.equal(result.code, 'ANALYTICS_005');
          t.equal(result.status, 422);
          t.same(Object.keys(result.errors).sort(), [...expect.fields].sort(), 'names exactly the bad fields');
          for (const messages of Object.values(result.errors)) t.ok(messages.length > 0 && messages.every((m) => m.length > 0));
        }
      }
    }
  });
}

t.test('canonical names win over legacy ones', async (t) => {
  const r = validateTrackingBody({ event: 'visitor', e: 'nope', token, u: 'x', data: { a: 1 }, d: 'not json' });
  t.ok(r.ok);
  if (r.ok) t.same(r.value.data, { a: 1 });
});

t.test('rawData is the JSON text of data, {} when absent', async (t) => {
  const with_ = validateTrackingBody(base({ chatbot_id: 'c', extra: [1] }));
  const without = validateTrackingBody({ event: 'visitor', token });
  t.ok(with_.ok && without.ok);
  if (with_.ok) t.equal(with_.value.rawData, '{"chatbot_id":"c","extra":[1]}');
  if (without.ok) t.equal(without.value.rawData, '{}');
});

t.test('data nested deeper than the stack is a 400, not a crash', async (t) => {
  let deep: unknown = {};
  for (let i = 0; i < 200_000; i++) deep = { a: deep };
  const r = validateTrackingBody({ event: 'visitor', token, data: deep });
  t.notOk(r.ok);
  if (!r.ok) t.equal(r.code, 'ANALYTICS_001');
});

t.test('a hostile number of bad items reports a bounded error list', async (t) => {
  const r = validateTrackingBody(base({ items: Array.from({ length: 5000 }, () => ({ quantity: 0 })) }));
  t.notOk(r.ok);
  if (!r.ok) t.ok(Object.keys(r.errors).length <= 50);
});
