import t from 'tap';
import type { ConsumedMessage } from '@chatlytics/bus';
import { AppError } from '@chatlytics/core';
import { decode, validate, enrich, runSteps } from '../src/steps.js';
import { RejectReason } from '../src/errors.js';
import { storedEvent } from './events.js';
import { EVENT_COLUMNS, RowWriter, encodeEventRow } from '../src/row-binary.js';
import { decodeEventRows } from './row-binary-decode.js';
import { StoredEvent, receivedAtMs } from '@chatlytics/events';

const message = (value: Buffer | string, offset = '7'): ConsumedMessage =>
  ({ partition: 2, offset, key: 'k', value: Buffer.isBuffer(value) ? value : Buffer.from(value), timestamp: 1_700_000_000_000 });

t.test('decode: JSON object ok, empty dropped, anything else dead-lettered as undecodable', async (t) => {
  const ok = decode(message('{"a":1}'));
  t.equal(ok.kind, 'ok');
  t.same(decode(message('')), { kind: 'drop', reason: 'empty' });
  for (const bad of ['{"a":', 'not json', '[1,2]', '"text"', 'null', '42']) {
    const r = decode(message(bad));
    t.equal(r.kind, 'dead-letter', bad);
    if (r.kind === 'dead-letter') t.equal(r.reason, RejectReason.Undecodable, bad);
  }
});

t.test('validate: a StoredEvent passes; a broken one names the field', async (t) => {
  const good = storedEvent(1);
  t.equal(validate({ message: message('x'), value: { ...good } }).kind, 'ok');
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['bad uuid', { ...good, event_id: 'nope' }, /event_id/],
    ['short token', { ...good, token: 'abc' }, /token/],
    ['bad time', { ...good, received_at: '2026-01-01T00:00:00Z' }, /received_at/],
    ['wrong type', { ...good, total_value: '12' }, /total_value/],
    ['bad ab_group', { ...good, ab_group: 'x' }, /ab_group/],
  ];
  for (const [name, value, field] of cases) {
    const r = validate({ message: message('x'), value });
    t.equal(r.kind, 'dead-letter', name);
    if (r.kind === 'dead-letter') {
      t.equal(r.reason, RejectReason.SchemaInvalid, name);
      t.match(r.error, field, name);
    }
  }
  const { event_id: _, ...missing } = good;
  const r = validate({ message: message('x'), value: missing });
  t.equal(r.kind, 'dead-letter');
});

t.test('enrich: keeps the event and its origin; the bus bytes stay the payload', async (t) => {
  const e = storedEvent(3);
  const bytes = Buffer.from(JSON.stringify(e, null, 2));
  const r = enrich({ message: message(bytes, '42'), event: e });
  if (r.kind !== 'ok') return t.fail('not ok');
  t.equal(r.value.message.value, bytes, 'the very same Buffer is what a refused row dead-letters');
  t.equal(r.value.event, e);
  const m = r.value.message;
  t.same([m.partition, m.offset, m.key, m.timestamp], [2, '42', 'k', 1_700_000_000_000]);
});

t.test('RowBinary rows read back (by an independent reader) as the events they encode', async (t) => {
  const samples = [
    storedEvent(1),
    { ...storedEvent(2), event_id: 'FFFFFFFF-0000-4000-8000-0123456789AB', ab_test: true, ab_group: 'test' as const, total_value_base: null,
      items: [{ item_id: 'sku-ü', value: 9.5, quantity: 4_294_967_295, currency: 'EUR' }, { item_id: '', value: -0.01, quantity: 1, currency: 'JPY' }] },
    { ...storedEvent(3), received_at: '1969-12-31 23:59:59.999', url: `https://shop.example/${'ä'.repeat(300)}`, data: JSON.stringify({ long: 'x'.repeat(20_000), emoji: '🛒' }) },
    { ...storedEvent(4), token: 'tok_' + 'é'.repeat(40), chatbot_id: '', data: '{}', client_hash: 'h'.repeat(43) },
  ];
  const w = new RowWriter(16);
  for (const e of samples) encodeEventRow(w, e);
  const back = decodeEventRows(w.bytes());
  t.same(back, samples.map((e) => ({ ...e, event_id: e.event_id.toLowerCase() })), 'every column, in EVENT_COLUMNS order');
  t.equal(receivedAtMs('2026-03-04 05:06:07.089'), Date.parse('2026-03-04T05:06:07.089Z'));
  t.throws(() => new RowWriter(16).uuid('not-a-uuid'), TypeError);
});

t.test('EVENT_COLUMNS are the StoredEvent schema properties, in order', async (t) => {
  t.same([...EVENT_COLUMNS], Object.keys(StoredEvent.properties));
});

t.test('runSteps chains the steps and turns a non-retriable throw into poison, a retriable one into a retry', async (t) => {
  const e = storedEvent(5);
  t.equal(runSteps(message(JSON.stringify(e))).kind, 'ok');
  t.equal(runSteps(message('{')).kind, 'dead-letter');
  t.equal(runSteps(message(JSON.stringify({ ...e, token: '' }))).kind, 'dead-letter');
  t.equal(runSteps(message('')).kind, 'drop');

  const throwing = (err: unknown) => ({ ...message('{}'), get value(): Buffer { throw err; } }) as ConsumedMessage;
  const bug = runSteps(throwing(new Error('boom')));
  t.equal(bug.kind, 'dead-letter');
  if (bug.kind === 'dead-letter') t.equal(bug.reason, RejectReason.Internal);
  t.throws(() => runSteps(throwing(new AppError('X', 'down', { retriable: true }))), { code: 'X' });
});
