import t from 'tap';
import type { ConsumedMessage } from '@chatlytics/bus';
import { AppError, createMetricsRegistry } from '@chatlytics/core';
import { RejectReason } from '../src/errors.js';
import { createConsumerMetrics } from '../src/metrics.js';
import { createMessagePipeline, createMessageSteps, type AnyStep } from '../src/pipeline.js';
import { RowWriter, encodeEventRow } from '../src/row-binary.js';
import { ok, ROW, DropReason, type Incoming } from '../src/step.js';
import { storedEvent } from './events.js';
import { incoming, message } from './messages.js';

t.test('the steps, in order: the fast path first, then the general chain', async (t) => {
  t.same(createMessagePipeline(createMessageSteps()).names, ['canonical', 'decode', 'order', 'validate', 'set-aside', 'encode']);
});

t.test('each message ends at the first step that does not say ok; a dead letter names that step', async (t) => {
  const pipeline = createMessagePipeline(createMessageSteps());
  const e = storedEvent(1);
  const cases: [string, string, string][] = [
    [JSON.stringify(e), 'row', 'canonical'],
    [JSON.stringify(e, null, 2), 'row', 'encode'],
    ['', 'drop', 'decode'],
    ['{', 'dead-letter', 'decode'],
    [JSON.stringify({ ...e, token: '' }), 'dead-letter', 'validate'],
  ];
  for (const [value, kind, step] of cases) {
    const r = pipeline.run(incoming(value));
    t.equal(r.kind, kind, value.slice(0, 30));
    t.equal(pipeline.endedBy, step, value.slice(0, 30));
    if (r.kind === 'dead-letter') t.equal(r.step, step, 'the dead letter names the step');
  }
});

t.test('both ways to a row write the same bytes', async (t) => {
  const pipeline = createMessagePipeline(createMessageSteps());
  const e = storedEvent(2);
  const fast = incoming(JSON.stringify(e));
  const general = incoming(JSON.stringify(e, null, 2));
  pipeline.run(fast);
  pipeline.run(general);
  const expected = new RowWriter(16);
  encodeEventRow(expected, e);
  t.same(fast.rows.bytes(), expected.bytes());
  t.same(general.rows.bytes(), expected.bytes());
});

const named = (name: string, run: AnyStep['run']): AnyStep => ({ name, run });

t.test('a throw: retriable asks for a retry, anything else is poison named after the step', async (t) => {
  const down = new AppError('X', 'down', { retriable: true });
  const pipeline = createMessagePipeline([
    named('first', (input) => ok(input)),
    named('thrower', (input) => { throw (input as Incoming).message.key === 'retry' ? down : new Error('boom'); }),
  ]);
  const bug = pipeline.run(incoming('x'));
  t.same(bug, { kind: 'dead-letter', reason: RejectReason.Internal, error: 'boom', step: 'thrower' });
  const again = pipeline.run({ message: { ...message('x'), key: 'retry' } as ConsumedMessage, rows: new RowWriter(16) });
  t.same(again, { kind: 'retry', error: down });
});

t.test('a list whose last step still says ok is a bug: internal poison, never a silent loss', async (t) => {
  const r = createMessagePipeline([named('only', (input) => ok(input))]).run(incoming('x'));
  t.match(r, { kind: 'dead-letter', reason: RejectReason.Internal, step: 'only' });
});

t.test('per-step time and messages, and drops by reason, reach /metrics', async (t) => {
  const registry = createMetricsRegistry();
  const metrics = createConsumerMetrics(registry);
  const pipeline = createMessagePipeline(createMessageSteps(), metrics);
  const e = storedEvent(3);
  for (const value of [JSON.stringify(e), JSON.stringify(e, null, 1), '', '']) pipeline.run(incoming(value));
  const before = await registry.getSingleMetric('chatlytics_consumer_step_messages_total')!.get();
  t.same(before.values, [], 'nothing before the batch is reported');
  pipeline.report();
  const text = await registry.metrics();
  t.match(text, /chatlytics_consumer_step_messages_total\{step="canonical"\} 4/);
  t.match(text, /chatlytics_consumer_step_messages_total\{step="decode"\} 3/);
  t.match(text, /chatlytics_consumer_step_messages_total\{step="order"\} 1/);
  t.match(text, /chatlytics_consumer_step_messages_total\{step="validate"\} 1/);
  t.match(text, /chatlytics_consumer_step_messages_total\{step="set-aside"\} 1/);
  t.match(text, /chatlytics_consumer_step_messages_total\{step="encode"\} 1/);
  t.match(text, new RegExp(`chatlytics_consumer_drops_total\\{reason="${DropReason.Empty}"\\} 2`));
  const seconds = (await registry.getSingleMetric('chatlytics_consumer_step_seconds_total')!.get()).values;
  t.same(seconds.map((v) => v.labels.step).sort(), ['canonical', 'decode', 'encode', 'order', 'set-aside', 'validate']);
  t.ok(seconds.every((v) => v.value > 0 && v.value < 10), 'each step took some time');
  pipeline.report();
  t.match(await registry.metrics(), /chatlytics_consumer_step_messages_total\{step="canonical"\} 4/, 'a report adds only what is new');
});

t.test('a step that ends the message with a row stops the chain', async (t) => {
  let later = 0;
  const pipeline = createMessagePipeline([named('first', () => ROW), named('second', () => { later++; return ROW; })]);
  t.same(pipeline.run(incoming('x')), { kind: 'row' });
  t.equal(later, 0);
});
