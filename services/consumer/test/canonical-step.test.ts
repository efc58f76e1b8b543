import t from 'tap';
import type { ConsumedMessage } from '@chatlytics/bus';
import { createCanonicalStep } from '../src/canonical-step.js';
import { RowWriter, encodeEventRow } from '../src/row-binary.js';
import { storedEvent } from './events.js';
import { incoming, message } from './messages.js';

const canonical = createCanonicalStep();

t.test('canonical: what the ingest writes becomes its row here, the general path\'s bytes', async (t) => {
  const e = storedEvent(5);
  const input = incoming(JSON.stringify(e));
  t.same(canonical.run(input), { kind: 'row' });
  const expected = new RowWriter(16);
  encodeEventRow(expected, e);
  t.same(input.rows.bytes(), expected.bytes());
});

t.test('canonical: anything else is passed on unchanged, the body untouched; it never drops or dead-letters', async (t) => {
  const e = storedEvent(6);
  for (const value of [JSON.stringify(e, null, 1), JSON.stringify({ ...e, url: 'https://shop.example/ü' }), '', '{', 'null', JSON.stringify({ ...e, token: '' })]) {
    const input = incoming(value);
    const r = canonical.run(input);
    t.same(r.kind, 'ok', value.slice(0, 40));
    if (r.kind === 'ok') t.equal(r.value, input, 'the same message goes on');
    t.equal(input.rows.pos, 0);
  }
});

t.test('canonical: a throw inside the fast path passes the message on instead of failing it', async (t) => {
  const throwing = { ...message('{}'), get value(): Buffer { throw new Error('boom'); } } as ConsumedMessage;
  const input = { message: throwing, rows: new RowWriter(16) };
  const r = canonical.run(input);
  t.equal(r.kind, 'ok');
  t.equal(input.rows.pos, 0);
});
