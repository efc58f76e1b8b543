import t from 'tap';
import { createDecodeStep } from '../src/decode-step.js';
import { RejectReason } from '../src/errors.js';
import { incoming } from './messages.js';

const decode = createDecodeStep();

t.test('decode: a JSON object goes on, with the message and its insert body', async (t) => {
  const input = incoming('{"a":1}');
  const r = decode.run(input);
  if (r.kind !== 'ok') return t.fail(r.kind);
  t.same(r.value.value, { a: 1 });
  t.equal(r.value.message, input.message);
  t.equal(r.value.rows, input.rows);
});

t.test('decode: an empty value (a tombstone) is dropped as empty, not poison', async (t) => {
  t.same(decode.run(incoming('')), { kind: 'drop', reason: 'empty' });
});

t.test('decode: anything but a JSON object is dead-lettered as undecodable', async (t) => {
  for (const bad of ['{"a":', 'not json', '[1,2]', '"text"', 'null', '42']) {
    const r = decode.run(incoming(bad));
    t.equal(r.kind, 'dead-letter', bad);
    if (r.kind === 'dead-letter') t.equal(r.reason, RejectReason.Undecodable, bad);
  }
});
