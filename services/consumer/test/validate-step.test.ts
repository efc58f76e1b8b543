import t from 'tap';
import { createValidateStep } from '../src/validate-step.js';
import { RejectReason } from '../src/errors.js';
import { RowWriter } from '../src/row-binary.js';
import { storedEvent } from './events.js';
import { message } from './messages.js';

const validate = createValidateStep();
const decoded = (value: Record<string, unknown>) => ({ message: message('x'), rows: new RowWriter(16), value });

t.test('validate: a StoredEvent goes on as the event', async (t) => {
  const good = storedEvent(1);
  const r = validate.run(decoded({ ...good }));
  if (r.kind !== 'ok') return t.fail(r.kind);
  t.same(r.value.event, good);
});

t.test('validate: a broken event is dead-lettered as invalid, the error naming the field', async (t) => {
  const good = storedEvent(1);
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['bad uuid', { ...good, event_id: 'nope' }, /event_id/],
    ['short token', { ...good, token: 'abc' }, /token/],
    ['bad time', { ...good, received_at: '2026-01-01T00:00:00Z' }, /received_at/],
    ['impossible date', { ...good, received_at: '2026-02-30 00:00:00.000' }, /received_at/],
    ['wrong type', { ...good, total_value: '12' }, /total_value/],
    ['bad ab_group', { ...good, ab_group: 'x' }, /ab_group/],
  ];
  for (const [name, value, field] of cases) {
    const r = validate.run(decoded(value));
    t.equal(r.kind, 'dead-letter', name);
    if (r.kind === 'dead-letter') {
      t.equal(r.reason, RejectReason.SchemaInvalid, name);
      t.match(r.error, field, name);
    }
  }
  const { event_id: _, ...missing } = good;
  t.equal(validate.run(decoded(missing)).kind, 'dead-letter', 'a missing field');
});
