import t from 'tap';
import { StoredEvent, receivedAtMs } from '@chatlytics/events';
import { createEncodeStep } from '../src/encode-step.js';
import { RejectReason } from '../src/errors.js';
import { EVENT_COLUMNS, RowWriter, encodeEventRow } from '../src/row-binary.js';
import { storedEvent } from './events.js';
import { message } from './messages.js';
import { decodeEventRows } from './row-binary-decode.js';

const encode = createEncodeStep();

t.test('encode: the event is appended to the insert body as its RowBinary row', async (t) => {
  const rows = new RowWriter(16);
  rows.u8(0xee);
  const e = storedEvent(3);
  t.same(encode.run({ message: message('x'), rows, event: e }), { kind: 'row' });
  t.equal(rows.buf[0], 0xee, 'what was there stays');
  t.same(decodeEventRows(rows.bytes().subarray(1)), [e]);
});

t.test('encode: an event the encoder cannot write is poison (internal), and no half row stays', async (t) => {
  const rows = new RowWriter(16);
  encodeEventRow(rows, storedEvent(1));
  const before = rows.pos;
  const tooMany = { ...storedEvent(2), items: Array.from({ length: 200 }, () => ({ item_id: 'x', value: 1, quantity: 1, currency: 'EUR' })) };
  const r = encode.run({ message: message('x'), rows, event: tooMany });
  t.equal(r.kind, 'dead-letter');
  if (r.kind === 'dead-letter') t.equal(r.reason, RejectReason.Internal);
  t.equal(rows.pos, before, 'the body ends after the previous row');
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
