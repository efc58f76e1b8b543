import t from 'tap';
import {
  EUR_RATES, abGroupOf, botMemoSize, createClientHasher, isBotUserAgent, decodeStoredEvent, encodeStoredEvent, eventIdFromSeed,
  formatReceivedAt, isStoredEvent, isValidReceivedAt, newEventId, normalizeEvent, validateTrackingBody, type NormalizeContext, StoredEvent,
} from '../src/index.js';

const receivedAt = new Date('2026-03-04T05:06:07.089Z');
const token = 'user_token_1';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function run(body: unknown, ctx: Partial<NormalizeContext> = {}) {
  const warnings: { obj: object; msg: string }[] = [];
  const v = validateTrackingBody(body);
  if (!v.ok) throw new Error(`fixture invalid: ${JSON.stringify(v.errors)}`);
  const event = normalizeEvent(v.value, { receivedAt, log: { warn: (obj, msg) => warnings.push({ obj, msg }) }, ...ctx });
  return { event, warnings };
}
const purchase = (data: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  run({ event: 'purchase', token, data, ...extra });

t.test('every normalised event passes the StoredEvent checker', async (t) => {
  const { event } = purchase({ items: [{ id: 1, price: '2.5', quantity: '3', currency: 'usd' }], currency: 'gbp', chatbot_id: 'c' });
  t.ok(isStoredEvent(event));
});

t.test('received_at is the server time in UTC with milliseconds', async (t) => {
  t.equal(formatReceivedAt(receivedAt), '2026-03-04 05:06:07.089');
  t.equal(purchase({}).event.received_at, '2026-03-04 05:06:07.089');
  t.equal(formatReceivedAt(new Date('2026-03-04T05:06:07Z')), '2026-03-04 05:06:07.000');
  // The last millisecond is remembered: the same instant again, then others, then back.
  t.equal(formatReceivedAt(new Date('2026-03-04T05:06:07Z')), '2026-03-04 05:06:07.000');
  t.equal(formatReceivedAt(new Date('2026-03-04T05:06:07.001Z')), '2026-03-04 05:06:07.001');
  t.equal(formatReceivedAt(new Date('1999-12-31T23:59:59.999Z')), '1999-12-31 23:59:59.999');
  t.equal(formatReceivedAt(new Date('2026-03-04T05:06:07Z')), '2026-03-04 05:06:07.000');
  t.throws(() => formatReceivedAt(new Date(NaN)), RangeError, 'an invalid date is refused, memo or not');
});

t.test('tracktrans is stored as purchase', async (t) => {
  t.equal(run({ event: 'tracktrans', token }).event.event, 'purchase');
  t.equal(run({ event: 'visitor', token }).event.event, 'visitor');
});

t.test('total_value sums value × quantity; quantity defaults to 1; price and id are aliases', async (t) => {
  const { event } = purchase({ items: [
    { item_id: 'a', value: 10, quantity: 2 },
    { id: 'b', price: 5 },
    { item_id: 'c', id: 'ignored', value: '1.25', price: 99, quantity: '4' },
  ] });
  t.equal(event.total_value, 30);
  t.same(event.items, [
    { item_id: 'a', value: 10, quantity: 2, currency: 'EUR' },
    { item_id: 'b', value: 5, quantity: 1, currency: 'EUR' },
    { item_id: 'c', value: 1.25, quantity: 4, currency: 'EUR' },
  ]);
  t.equal(event.total_value_base, 30);
});

t.test('an item without value counts as 0; no items gives totals of 0', async (t) => {
  t.equal(purchase({ items: [{ item_id: 'x' }] }).event.total_value, 0);
  const none = purchase({});
  t.equal(none.event.total_value, 0);
  t.equal(none.event.total_value_base, 0);
  t.same(none.event.items, []);
});

t.test('currency: item own, else data.currency, else EUR; upper-cased; items keep theirs', async (t) => {
  const { event } = purchase({ currency: 'usd', items: [
    { value: 100, currency: 'gbp' },
    { value: 100 },
  ] });
  t.equal(event.currency, 'USD');
  t.same(event.items.map((i) => i.currency), ['GBP', 'USD']);
  t.equal(event.total_value, 200);
  t.equal(event.total_value_base, 100 * EUR_RATES.GBP + 100 * EUR_RATES.USD);
  t.equal(purchase({ items: [{ value: 1 }] }).event.items[0].currency, 'EUR');
  t.equal(purchase({}).event.currency, '', 'no data.currency is stored as empty');
});

t.test('every currency of the documented table converts at its rate', async (t) => {
  const table: Record<string, number> = {
    EUR: 1.0, USD: 0.92, GBP: 1.17, CZK: 0.041, PLN: 0.23, RON: 0.2, HUF: 0.0026, UAH: 0.024,
    CHF: 1.05, DKK: 0.134, SEK: 0.088, NOK: 0.086, BGN: 0.51, HRK: 0.133, RSD: 0.0085,
  };
  t.same({ ...EUR_RATES }, table);
  for (const [code, rate] of Object.entries(table)) {
    t.equal(purchase({ items: [{ value: 200, quantity: 3, currency: code }] }).event.total_value_base, 600 * rate, code);
  }
});

t.test('EUR values keep full precision (no rounding to cents in storage)', async (t) => {
  const { event } = purchase({ items: [{ value: 0.333, quantity: 3, currency: 'USD' }, { value: 0.1 }, { value: 0.2 }] });
  t.equal(event.total_value, 0.333 * 3 + 0.1 + 0.2);
  t.equal(event.total_value_base, 0.333 * 3 * 0.92 + 0.1 + 0.2);
  t.not(event.total_value_base, Math.round(event.total_value_base! * 100) / 100, 'not rounded');
});

t.test('an unknown currency makes total_value_base null and logs a warning with the event id', async (t) => {
  const { event, warnings } = purchase({ items: [{ value: 1, currency: 'XYZ' }, { value: 2, currency: 'EUR' }, { value: 3, currency: 'xyz' }] });
  t.equal(event.total_value, 6);
  t.equal(event.total_value_base, null);
  t.equal(warnings.length, 1);
  t.same(warnings[0].obj, { eventId: event.event_id, currencies: ['XYZ'] });
  t.ok(isStoredEvent(event));
  const viaEventCurrency = purchase({ currency: 'ABC', items: [{ value: 1 }] });
  t.equal(viaEventCurrency.event.total_value_base, null);
  t.equal(purchase({ currency: 'ABC' }).warnings.length, 0, 'no items, nothing to convert, no warning');
});

t.test('ab_group: control for 0, test for 1, null otherwise or without ab_test', async (t) => {
  t.equal(abGroupOf(true, 'abcdefg0'), 'control');
  t.equal(abGroupOf(true, 'abcdefg1'), 'test');
  t.equal(abGroupOf(true, 'abcdefg2'), null);
  t.equal(abGroupOf(true, 'abcdefgz'), null);
  t.equal(abGroupOf(false, 'abcdefg0'), null);
  t.equal(run({ event: 'visitor', token: 'abcdefg0', ab_test: true }).event.ab_group, 'control');
  t.equal(run({ event: 'visitor', token: 'abcdefg1', ab_test: '1' }).event.ab_group, 'test');
  t.equal(run({ event: 'visitor', token: 'abcdefg1', ab_test: 'false' }).event.ab_group, null);
  t.equal(run({ event: 'visitor', token: 'abcdefg1' }).event.ab_test, false);
});

t.test('event_id: a fresh UUID v7, or the client valid data.event_id (lower-cased)', async (t) => {
  const a = run({ event: 'visitor', token }).event.event_id;
  const b = run({ event: 'visitor', token }).event.event_id;
  t.match(a, UUID_V7);
  t.not(a, b);
  const own = 'A1B2C3D4-0000-4000-8000-00000000000F';
  t.equal(run({ event: 'visitor', token, data: { event_id: own } }).event.event_id, own.toLowerCase());
  for (const bad of ['not-a-uuid', 42, '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', `${own}x`]) {
    const { event } = run({ event: 'visitor', token, data: { event_id: bad } });
    t.match(event.event_id, UUID_V7, `ignored: ${String(bad)}`);
    t.match(event.data, /event_id/, 'kept in the raw payload');
  }
  t.equal(a.slice(0, 13).replace('-', ''), receivedAt.getTime().toString(16).padStart(12, '0'), 'v7 timestamp = received_at');
  t.match(newEventId(0x0123456789ab), /^01234567-89ab-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.match(newEventId(0), /^00000000-0000-7/);
  t.match(newEventId(2 ** 48 - 1), /^ffffffff-ffff-7/);
  t.equal(new Set(Array.from({ length: 10_000 }, () => newEventId(1))).size, 10_000, 'unique within one millisecond');
  const seeded = eventIdFromSeed('import:1');
  t.equal(run({ event: 'visitor', token }, { fallbackEventId: seeded }).event.event_id, seeded);
  t.equal(eventIdFromSeed('import:1'), seeded, 'deterministic');
  t.not(eventIdFromSeed('import:2'), seeded);
});

const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0',
];
const BOTS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36',
  'curl/8.5.0',
];

t.test('is_bot: the stored user_agent classified by the isbot list', async (t) => {
  for (const ua of BROWSERS) {
    t.equal(isBotUserAgent(ua), false, `browser: ${ua}`);
    t.equal(run({ event: 'visitor', token }, { userAgentHeader: ua }).event.is_bot, false, 'header: not flagged');
  }
  for (const ua of BOTS) {
    t.equal(isBotUserAgent(ua), true, `bot: ${ua}`);
    t.equal(run({ event: 'visitor', token }, { userAgentHeader: ua }).event.is_bot, true, 'header: flagged');
  }
  // data.user_agent is what is stored, so it is what is classified (a shop server relaying a visitor's event).
  t.equal(run({ event: 'visitor', token, data: { user_agent: BROWSERS[0] } }, { userAgentHeader: 'curl/8.5.0' }).event.is_bot, false);
  t.equal(run({ event: 'visitor', token, data: { user_agent: BOTS[0] } }, { userAgentHeader: BROWSERS[0] }).event.is_bot, true);
  t.equal(run({ event: 'visitor', token }).event.is_bot, false, 'no User-Agent at all: not a bot');
  const message = JSON.parse(encodeStoredEvent(run({ event: 'visitor', token }, { userAgentHeader: BOTS[0] }).event).value.toString());
  t.same(Object.keys(message), Object.keys(StoredEvent.properties), 'every property on the bus, in the schema order');
  t.equal(message.is_bot, true);
});

t.test('is_bot: remembered answers stay right, and the memo stays bounded', async (t) => {
  for (let round = 0; round < 2; round++) {
    for (const ua of BROWSERS) t.equal(isBotUserAgent(ua), false, `browser again: ${ua}`);
    for (const ua of BOTS) t.equal(isBotUserAgent(ua), true, `bot again: ${ua}`);
  }
  for (let i = 0; i < 5_000; i++) isBotUserAgent(`${i % 2 ? 'curl' : 'Mozilla'}/${i}.0`);
  t.ok(botMemoSize() <= 2_000, `memo holds ${botMemoSize()} User-Agents`);
  t.equal(isBotUserAgent('curl/4999.0'), true);
  t.equal(isBotUserAgent(BROWSERS[0]), false);
  t.equal(isBotUserAgent(''), false);
});

t.test('user_agent from data, else the header (cut to the column size); url from data', async (t) => {
  t.equal(run({ event: 'visitor', token, data: { user_agent: 'UA-data' } }, { userAgentHeader: 'UA-header' }).event.user_agent, 'UA-data');
  t.equal(run({ event: 'visitor', token }, { userAgentHeader: 'UA-header' }).event.user_agent, 'UA-header');
  t.equal(run({ event: 'visitor', token }, { userAgentHeader: 'u'.repeat(5000) }).event.user_agent.length, 1024);
  t.equal(run({ event: 'visitor', token }).event.user_agent, '');
  t.equal(run({ event: 'visitor', token, data: { url: 'https://shop.test/p' } }).event.url, 'https://shop.test/p');
});

t.test('data fields map to columns; the raw payload keeps unknown fields', async (t) => {
  const { event } = run({ event: 'convo_started', token, data: {
    chatbot_id: 'bot-1', popup_version: 7, open_way: 'popup', orderNum: 991, custom: { x: 1 },
  } });
  t.match(event, { chatbot_id: 'bot-1', popup_version: '7', open_way: 'popup', order_num: '991' });
  t.same(JSON.parse(event.data), { chatbot_id: 'bot-1', popup_version: 7, open_way: 'popup', orderNum: 991, custom: { x: 1 } });
  t.match(run({ event: 'visitor', token }).event, { chatbot_id: '', popup_version: '', open_way: '', order_num: '', data: '{}' });
});

t.test('client IP: only a keyed hash is stored', async (t) => {
  const hashA = createClientHasher('a-secret-of-16-bytes!');
  const hashB = createClientHasher('another-secret-16-bytes');
  t.equal(hashA('203.0.113.7'), hashA('203.0.113.7'), 'stable for one key');
  t.not(hashA('203.0.113.7'), hashA('203.0.113.8'));
  t.not(hashA('203.0.113.7'), hashB('203.0.113.7'), 'depends on the key');
  t.match(hashA('203.0.113.7'), /^[0-9a-f]{32}$/);
  t.throws(() => createClientHasher('short'));
  const { event } = run({ event: 'visitor', token }, { clientHash: hashA('203.0.113.7') });
  t.equal(event.client_hash, hashA('203.0.113.7'));
  t.notMatch(JSON.stringify(event), /203\.0\.113\.7/);
});

t.test('bus encoding round-trips through the consumer decoder', async (t) => {
  const { event } = purchase({ items: [{ value: 1 }] });
  const message = encodeStoredEvent(event);
  t.equal(message.key, token);
  const decoded = decodeStoredEvent(message.value);
  t.ok(decoded.ok);
  if (decoded.ok) t.same(decoded.event, event);
  const broken = decodeStoredEvent('{nope');
  t.match(broken, { ok: false, reason: 'malformed_json' });
  const wrong = decodeStoredEvent(JSON.stringify({ ...event, ab_group: 'other', received_at: '2026-01-01T00:00:00Z', is_bot: event.is_bot ?? false, source: event.source ?? '', utm_medium: event.utm_medium ?? '', utm_campaign: event.utm_campaign ?? '', device: event.device ?? '', holdout: event.holdout ?? '' } satisfies Record<keyof StoredEvent, unknown>));
  t.match(wrong, { ok: false, reason: 'invalid_event' });
  if (!wrong.ok) t.same(Object.keys(wrong.errors).sort(), ['ab_group', 'received_at']);
  const impossible = decodeStoredEvent(JSON.stringify({ ...event, received_at: '2026-02-29 10:00:00.000' }));
  t.match(impossible, { ok: false, reason: 'invalid_event', errors: { received_at: [/real UTC time/] } }, 'right shape, no such day');
  t.notOk(isStoredEvent({ ...event, received_at: '2026-13-01 00:00:00.000' }));
  const huge = decodeStoredEvent(JSON.stringify({ ...event, items: [{ ...event.items[0], quantity: 5_000_000_000 }] }));
  t.match(huge, { ok: false, reason: 'invalid_event' }, 'a quantity UInt32 cannot hold is refused, not wrapped');
  const longVersion = decodeStoredEvent(JSON.stringify({ ...event, popup_version: 'v'.repeat(101) }));
  t.match(longVersion, { ok: false, reason: 'invalid_event', errors: { popup_version: [/100/] } }, 'the consumer bounds popup_version as the ingest does');
});

t.test('isValidReceivedAt: calendar days, leap years, time fields and DateTime64 range', async (t) => {
  for (const ok of ['2024-02-29 23:59:59.999', '2000-02-29 00:00:00.000', '1900-01-01 00:00:00.000', '2299-12-31 23:59:59.999', '2026-04-30 12:00:00.000']) {
    t.ok(isValidReceivedAt(ok), ok);
  }
  for (const bad of ['2026-02-29 00:00:00.000', '1900-02-29 00:00:00.000', '2026-04-31 00:00:00.000', '2026-00-10 00:00:00.000',
    '2026-01-00 00:00:00.000', '2026-01-01 24:00:00.000', '2026-01-01 00:60:00.000', '2026-01-01 00:00:60.000',
    '1899-12-31 23:59:59.999', '2300-01-01 00:00:00.000']) {
    t.notOk(isValidReceivedAt(bad), bad);
  }
});
