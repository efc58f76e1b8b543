import t from 'tap';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import type { ConsumedMessage } from '@chatlytics/bus';
import { StoredEvent, StoredItem, normalizeEvent, validateTrackingBody } from '@chatlytics/events';
import { generateEvents } from '@chatlytics/testkit';
import { transcodeCanonicalEvent } from '../src/canonical-transcode.js';
import { EVENT_COLUMNS, RowWriter } from '../src/row-binary.js';
import { createMessagePipeline, createMessageSteps } from '../src/pipeline.js';
import { CANONICAL_STEP } from '../src/canonical-step.js';
import { chTime, storedEvent } from './events.js';

/**
 * The fast path's one promise: whenever it takes a message, it writes exactly the bytes the
 * general path (JSON.parse + schema + encodeEventRow) would — the event id and received_at the
 * writer's duplicate checks read are among them; everything else it declines, leaving the
 * writer untouched.
 */
const message = (value: Buffer): ConsumedMessage => ({ partition: 0, offset: '1', key: null, value, timestamp: 0 });
const PREFIX = Buffer.from([0xab, 0xcd]);

/** The consumer's steps after the fast one: decode → validate → encode. */
const generalPath = createMessagePipeline(createMessageSteps().filter((s) => s.name !== CANONICAL_STEP));

function general(bytes: Buffer) {
  const w = new RowWriter(16);
  const r = generalPath.run({ message: message(bytes), rows: w });
  if (r.kind !== 'row') return { kind: r.kind };
  return { kind: 'ok', bytes: Buffer.from(w.bytes()) };
}

function fast(bytes: Buffer) {
  const w = new RowWriter(16);
  w.u8(PREFIX[0]);
  w.u8(PREFIX[1]);
  const taken = transcodeCanonicalEvent(bytes, w);
  const out = Buffer.from(w.bytes());
  if (!taken) return { declined: true, untouched: out.equals(PREFIX) };
  return { declined: false, kind: 'ok', bytes: out.subarray(2) };
}

/** True when the fast path declined cleanly or agrees with the general path exactly. */
function agrees(bytes: Buffer): boolean {
  const f = fast(bytes);
  if (f.declined) return f.untouched === true;
  const g = general(bytes);
  return g.kind === 'ok' && g.bytes!.equals(f.bytes!);
}

const json = (e: unknown) => Buffer.from(JSON.stringify(e));

t.test('the schema is what the transcoder was written for', async (t) => {
  t.same(Object.keys(StoredEvent.properties), [...EVENT_COLUMNS], 'StoredEvent keys in column order');
  t.same(Object.keys(StoredItem.properties), ['item_id', 'value', 'quantity', 'currency']);
  t.equal((StoredEvent.properties.token as { pattern?: string }).pattern, '^[A-Za-z0-9_-]+$', 'the token pattern its TOKEN table encodes');
});

t.test('what the ingest writes takes the fast path, with the general path\'s bytes', async (t) => {
  const generated = generateEvents({ seed: 7, now: Date.UTC(2026, 5, 1), chatbotId: randomUUID(), otherChatbotIds: [randomUUID()], users: 200 });
  let ascii = 0;
  for (const e of generated) {
    const bytes = json(e);
    t.ok(agrees(bytes), e.event_id) || t.comment(bytes.toString());
    const isAscii = !/[^\x20-\x7e]/.test(bytes.toString('latin1'));
    if (isAscii) {
      ascii++;
      if (fast(bytes).declined) t.fail(`an ASCII canonical event was declined: ${bytes.toString()}`);
    } else t.ok(fast(bytes).declined, 'non-ASCII text goes to the general path');
  }
  t.ok(ascii > generated.length * 0.9, `${ascii} of ${generated.length} testkit events are ASCII`);

  // Through the ingest's own normalisation: key order, escaping and number forms as produced.
  const tracked = validateTrackingBody({ event: 'purchase', token: 'tok_12345678', ab_test: true, data: { chatbot_id: 'bot-1', orderNum: 'A-1', currency: 'usd', url: 'https://s.example/p?q="x"', items: [{ item_id: 'sku\t1', price: '19.99', quantity: 2 }, { id: 7, value: 5 }] } });
  t.equal(tracked.ok, true);
  if (tracked.ok) {
    const stored = normalizeEvent(tracked.value, { receivedAt: new Date(Date.UTC(2026, 1, 28, 23, 59, 59, 999)), log: { warn() {} }, userAgentHeader: 'UA/1.0' });
    const bytes = json(stored);
    const f = fast(bytes);
    t.equal(f.declined, false, 'a normalised ingest event is canonical');
    t.ok(agrees(bytes));
  }
});

t.test('hand-picked edges: declined, or identical to the general path', async (t) => {
  const base = storedEvent(5);
  const text = JSON.stringify(base);
  const declined: [string, string][] = [
    ['whitespace after the brace', `${text}\n`],
    ['whitespace inside', text.replace('"event":', '"event": ')],
    ['keys reordered', JSON.stringify((({ event, ...rest }) => ({ ...rest, event }))(base))],
    ['an extra key', JSON.stringify({ ...base, extra: 1 })],
    ['a missing key', JSON.stringify({ ...base, data: undefined })],
    ['upper-case id', JSON.stringify({ ...base, event_id: base.event_id.toUpperCase() })],
    ['non-ASCII text', JSON.stringify({ ...base, url: 'https://shop.example/ä' })],
    ['\\u escape above U+007F', text.replace('"url":"', '"url":"\\u00e4')],
    ['a raw control character (not JSON)', text.replace('"url":"', '"url":"\t')],
    ['a number too large for a double', text.replace('"total_value":19.9', '"total_value":1e400')],
    ['a leading zero (not JSON)', text.replace('"total_value":19.9', '"total_value":019.9')],
    ['quantity 0', text.replace('"quantity":1', '"quantity":0')],
    ['quantity 2^32', text.replace('"quantity":1', '"quantity":4294967296')],
    ['fractional quantity', text.replace('"quantity":1', '"quantity":1.5')],
    // Valid (2.0 is the integer 2) but never what JSON.stringify writes: the general path takes it.
    ['quantity written as 2.0', text.replace('"quantity":1', '"quantity":2.0')],
    ['no such day', text.replace(/"received_at":"[^"]+"/, '"received_at":"2026-02-29 10:00:00.000"')],
    ['year outside DateTime64', text.replace(/"received_at":"[^"]+"/, '"received_at":"1899-12-31 23:59:59.999"')],
    ['token with a dot', text.replace(/"token":"[^"]+"/, '"token":"abc.defgh"')],
    ['token too short', text.replace(/"token":"[^"]+"/, '"token":"abcdefg"')],
    ['ab_group outside the union', text.replace('"ab_group":null', '"ab_group":"other"')],
    ['51 items', JSON.stringify({ ...base, items: Array.from({ length: 51 }, () => base.items[0]) })],
    ['popup_version of 101 characters', JSON.stringify({ ...base, popup_version: 'v'.repeat(101) })],
    ['truncated', text.slice(0, -1)],
  ];
  t.equal(fast(Buffer.from(text)).declined, false, 'the unmodified event is taken');
  for (const [what, variant] of declined) {
    const f = fast(Buffer.from(variant));
    t.ok(f.declined && f.untouched, what);
    t.ok(agrees(Buffer.from(variant)), what);
  }
  const taken: [string, string][] = [
    ['escapes decoded', JSON.stringify({ ...base, data: '{"a":"q\\"uo\\\\te\\n\\t/"}' })],
    ['\\u escape below U+0080', text.replace('"url":"', '"url":"\\u0041\\u001f')],
    ['\\/ escape', text.replace('"url":"', '"url":"\\/')],
    ['negative zero and exponents', text.replace('"total_value":19.9', '"total_value":-0').replace('"total_value_base":19.9', '"total_value_base":1.5E-7')],
    ['a 16-digit integer', text.replace('"total_value":19.9', '"total_value":9007199254740993')],
    ['quantity at the maximum', text.replace('"quantity":1', '"quantity":4294967295')],
    ['null base, test group', JSON.stringify({ ...base, total_value_base: null, ab_group: 'test', ab_test: true })],
    ['50 items', JSON.stringify({ ...base, items: Array.from({ length: 50 }, (_, i) => ({ ...base.items[0], item_id: `sku-${i}` })) })],
    ['a long url (two-byte length)', JSON.stringify({ ...base, url: `https://shop.example/${'p'.repeat(2000)}` })],
    ['popup_version of 100 characters', JSON.stringify({ ...base, popup_version: 'v'.repeat(100) })],
    ['leap day', text.replace(/"received_at":"[^"]+"/, '"received_at":"2024-02-29 10:00:00.000"')],
  ];
  for (const [what, variant] of taken) {
    t.equal(fast(Buffer.from(variant)).declined, false, `${what}: taken`);
    t.ok(agrees(Buffer.from(variant)), `${what}: same bytes as the general path`);
  }
});

// Mostly valid values (so that many events are taken), one in ten from JSON's and the schema's edges.
const mix = <T>(valid: fc.Arbitrary<T>, edge: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 9 }, { arbitrary: edge, weight: 1 });
const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 30 });
const escapable = fc.string({ unit: fc.constantFrom('"', '\\', '/', '\n', '\t', '\b', '\f', '\r', '\u0000', '\u001f', '\u007f', 'a', '-'), maxLength: 8 });
const edgeString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\u0000', 'ä', '\ud800', '\u{1f600}', 'a', '.'), maxLength: 12 }),
  fc.constantFrom('', 'a'.repeat(3), 'x'.repeat(50), 'x'.repeat(51), 'y'.repeat(128), 'y'.repeat(129), 'v'.repeat(100), 'v'.repeat(101), 'z'.repeat(512), 'z'.repeat(513), 'w'.repeat(2049)),
);
const text = mix(fc.oneof(printable, escapable), edgeString);
const edgeNumber = fc.oneof(fc.double(), fc.constantFrom(0, -0, 4294967296, 1e21, 5e-324, Number.MAX_VALUE, -1, 2.5));
const number = mix(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer()), edgeNumber);
const quantity = mix(fc.integer({ min: 1, max: 4294967295 }), edgeNumber);
const currency = mix(fc.constantFrom('', 'EUR', 'USD', 'X', 'AB'), edgeString);
const item = fc.record({ item_id: text, value: number, quantity, currency });
const dateText = mix(
  fc.date({ min: new Date(Date.UTC(1900, 0, 1)), max: new Date(Date.UTC(2299, 11, 31)), noInvalidDate: true }).map((d) => chTime(d.getTime())),
  fc.oneof(
    fc.date({ min: new Date(Date.UTC(1800, 0, 1)), max: new Date(Date.UTC(2400, 0, 1)), noInvalidDate: true }).map((d) => chTime(d.getTime())),
    fc.constantFrom('2026-13-01 00:00:00.000', '2026-04-31 00:00:00.000', '2026-01-01 24:00:00.000', '2026-01-01T00:00:00.000', '2026-01-01 00:00:00.00'),
  ),
);
const anyEvent = fc.record({
  event_id: mix(fc.uuid(), fc.oneof(fc.uuid().map((u) => u.toUpperCase()), fc.constantFrom('not-a-uuid', ''))),
  event: mix(fc.constantFrom('visitor', 'purchase', 'popup_displayed'), edgeString),
  token: mix(fc.stringMatching(/^[A-Za-z0-9_-]{8,20}$/), edgeString),
  chatbot_id: text,
  received_at: dateText,
  ab_test: mix(fc.boolean(), fc.constant(1 as unknown as boolean)),
  ab_group: mix(fc.constantFrom<'control' | 'test' | null>('control', 'test', null), fc.constant('other' as 'test')),
  popup_version: text,
  open_way: text,
  order_num: text,
  currency,
  total_value: number,
  total_value_base: fc.oneof(number, fc.constant(null)),
  items: mix(fc.array(item, { maxLength: 4 }), fc.array(item, { minLength: 49, maxLength: 52 })),
  url: text,
  user_agent: text,
  client_hash: text,
  data: text,
  // undefined: the key is absent (a message published before the column existed).
  is_bot: mix(fc.boolean(), fc.constantFrom(undefined, 1 as unknown as boolean, 'true' as unknown as boolean)),
  source: mix(text, fc.constant(undefined)),
  utm_medium: mix(text, fc.constant(undefined)),
  utm_campaign: mix(text, fc.constant(undefined)),
  device: mix(fc.constantFrom('desktop', 'mobile', 'tablet'), fc.constant(undefined)),
  // Not one of the schema's three arms: the general path refuses it, so the fast path must decline.
  holdout: mix(fc.constantFrom('exposed', 'holdout', ''), fc.constantFrom(undefined, 'held', 'exposedx', 'Holdout')) as fc.Arbitrary<'exposed'>,
});

t.test('property: any event, valid or not, is declined or transcoded exactly', async (t) => {
  let taken = 0;
  fc.assert(fc.property(anyEvent, (e) => {
    const bytes = json(e);
    if (!fast(bytes).declined) taken++;
    return agrees(bytes);
  }), { numRuns: 3000 });
  t.ok(taken > 100, `${taken} of 3000 arbitrary events were taken by the fast path (so the property tested it)`);
});

t.test('property: a canonical event with any one byte changed, removed or inserted', async (t) => {
  const canonical = fc.integer({ min: 0, max: 10_000 }).map((i) => json(storedEvent(i)));
  const byte = fc.oneof(fc.constantFrom(...'"\\,:{}[]0123456789.eE+-utrfnl xA_'.split('').map((c) => c.charCodeAt(0))), fc.integer({ min: 0, max: 255 }));
  let taken = 0;
  fc.assert(fc.property(canonical, fc.nat(), byte, fc.constantFrom('replace', 'remove', 'insert'), (bytes, at, b, how) => {
    const i = at % bytes.length;
    const mutated = how === 'replace'
      ? Buffer.concat([bytes.subarray(0, i), Buffer.from([b]), bytes.subarray(i + 1)])
      : how === 'remove' ? Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)])
        : Buffer.concat([bytes.subarray(0, i), Buffer.from([b]), bytes.subarray(i)]);
    if (!fast(mutated).declined) taken++;
    return agrees(mutated);
  }), { numRuns: 5000 });
  t.ok(taken > 0, `${taken} of 5000 mutants were still taken (a changed digit or letter), each identical to the general path`);
});
