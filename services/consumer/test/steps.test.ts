import t from 'tap';
import type { ConsumedMessage } from '@chatlytics/bus';
import { AppError } from '@chatlytics/core';
import { decode, validate, enrich, runSteps } from '../src/steps.js';
import { RejectReason } from '../src/errors.js';
import { storedEvent } from './events.js';
import { EVENT_COLUMNS } from '../src/compact-row.js';
import { StoredEvent } from '@chatlytics/events';

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

t.test('enrich: the row is the compact JSON of every column in order; the bus bytes stay the payload', async (t) => {
  const e = { ...storedEvent(3), items: [{ item_id: 'sku-1', value: 9.5, quantity: 2, currency: 'EUR' }] };
  const bytes = Buffer.from(JSON.stringify(e, null, 2));
  const m = message(bytes, '42');
  const r = enrich({ message: m, event: e });
  t.equal(r.kind, 'ok');
  if (r.kind !== 'ok') return;
  t.equal(r.value.payload, bytes, 'the very same Buffer is what a refused row dead-letters');
  t.notOk(r.value.row.includes('\n'), 'one line whatever the producer sent');
  const values = JSON.parse(r.value.row) as unknown[];
  t.equal(values.length, EVENT_COLUMNS.length);
  const back = Object.fromEntries(EVENT_COLUMNS.map((c, i) => [c, values[i]]));
  t.same(back, { ...e, items: [['sku-1', 9.5, 2, 'EUR']] }, 'column i holds property EVENT_COLUMNS[i]');
  t.equal(r.value.eventId, e.event_id);
  t.equal(r.value.receivedAt, e.received_at);
  t.same([r.value.partition, r.value.offset, r.value.key, r.value.busTimestamp], [2, '42', 'k', 1_700_000_000_000]);
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
