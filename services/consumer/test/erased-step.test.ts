/**
 * An erased visitor's messages are dropped by the first step (README.md, "Personal data"): in
 * the consumer, whatever it reads after the list is loaded, and in a replay of the bus, so a
 * replay after an erasure does not bring the visitor back.
 */
import t from 'tap';
import { erasedTokenDigest, erasedTokenPrefilter, type ErasedTokenList } from '@chatlytics/clickhouse';
import { createMessagePipeline, createMessageSteps } from '../src/pipeline.js';
import { createErasedStep, NO_ERASED_TOKENS } from '../src/erased-step.js';
import { encodeOrderMessage, isOrderProblem, toStoredOrder } from '@chatlytics/events';
import { DropReason } from '../src/step.js';
import { replay } from '../src/replay.js';
import { RowWriter } from '../src/row-binary.js';
import { FakeBus, FakeClickHouse } from './fakes.js';
import { storedEvent, toMessage } from './events.js';
import { consumerFor, silent, until } from './helpers.js';

const listOf = (entries: [string, string][]): ErasedTokenList => {
  const digests = new Set(entries.map(([c, tok]) => erasedTokenDigest(c, tok)));
  const prefilters = new Set(entries.map(([, tok]) => erasedTokenPrefilter(tok)));
  return { empty: entries.length === 0, mayHold: (tok) => prefilters.has(erasedTokenPrefilter(tok)), has: (c, tok) => digests.has(erasedTokenDigest(c, tok)) };
};
const run = (list: ErasedTokenList, e: ReturnType<typeof storedEvent>, key: string | null = e.token) => {
  const pipeline = createMessagePipeline(createMessageSteps(() => list));
  const m = toMessage(e);
  return pipeline.run({ message: { partition: 0, offset: '1', key, value: m.value, timestamp: 0 }, rows: new RowWriter(16) });
};

t.test('the step drops the listed (chatbot, token) only', async (t) => {
  const e = storedEvent(1, { token: 'erased_visitor_1', chatbot_id: 'bot-1' });
  const list = listOf([['bot-1', 'erased_visitor_1']]);
  t.same(run(list, e), { kind: 'drop', reason: DropReason.Erased }, 'listed token: dropped');
  t.same(run(list, e, null), { kind: 'drop', reason: DropReason.Erased }, 'without a key: read from the value');
  t.equal(run(list, { ...e, chatbot_id: 'bot-2' }).kind, 'row', 'the same token of another chatbot is kept');
  t.equal(run(list, { ...e, token: 'erased_visitor_10' }).kind, 'row', 'a longer token is another visitor');
  t.equal(run(NO_ERASED_TOKENS, e).kind, 'row', 'an empty list keeps everything');
  t.same(createMessagePipeline(createMessageSteps(() => list)).names.slice(0, 2), ['erased', 'canonical'], 'first, before the fast path');
});

t.test('after an erasure neither the consumer nor a replay stores the visitor again', async (t) => {
  const bus = new FakeBus(2, 40);
  const clickhouse = new FakeClickHouse();
  const mine = Array.from({ length: 20 }, (_, i) => storedEvent(i, { token: i % 2 ? 'erased_visitor_1' : 'kept_visitor_1', order_num: '' }));
  await bus.publish(mine.map(toMessage));
  const consumer = consumerFor(bus, clickhouse);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.equal(clickhouse.events.filter((r) => r.token === 'erased_visitor_1').length, 10, 'stored before the erasure');

  // The erasure as the dashboard does it: listed first, then its rows deleted.
  await clickhouse.insert('erased_tokens', [{ chatbot_id: 'bot-1', digest: erasedTokenDigest('bot-1', 'erased_visitor_1'), prefilter: erasedTokenPrefilter('erased_visitor_1') }]);
  clickhouse.tables.set('events', clickhouse.events.filter((r) => r.token !== 'erased_visitor_1'));

  const summary = await replay({ bus, clickhouse, from: new Date(0), stream: 'events', log: silent, slotClaimSettleMs: 0 });
  t.match(summary, { messages: 20, inserted: 0 });
  t.equal(clickhouse.events.filter((r) => r.token === 'erased_visitor_1').length, 0, 'the replay did not restore the visitor');

  await bus.publish([toMessage(storedEvent(99, { token: 'erased_visitor_1', order_num: '' })), toMessage(storedEvent(98, { token: 'kept_visitor_1', order_num: '' }))]);
  const again = consumerFor(bus, clickhouse);
  await again.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await again.stop();
  t.equal(clickhouse.events.filter((r) => r.token === 'erased_visitor_1').length, 0, 'nor a message still on the bus');
  t.equal(clickhouse.events.filter((r) => r.token === 'kept_visitor_1').length, 11, 'other visitors are stored');
});

t.test("an erased visitor's order is the shop's and goes on, without the token", async (t) => {
  const order = toStoredOrder('bot-1', {
    order_id: 'ORD-1', token: 'erased_visitor_1', placed_at: '2026-05-01T10:00:00Z', currency: 'EUR',
    items: [{ item_id: 'sku-1', quantity: 1, value: 20 }], status: 'paid',
  }, 'api', new Date());
  if (isOrderProblem(order)) throw new Error(order.message);
  const steps = (list: ErasedTokenList) => createMessagePipeline(createMessageSteps(() => list));
  const message = (o: typeof order) => ({ partition: 0, offset: '1', timestamp: 0, ...encodeOrderMessage(o) });
  const erasedFirst = createErasedStep(() => listOf([['bot-1', 'erased_visitor_1']]));
  const out = erasedFirst.run({ message: message(order), rows: new RowWriter(16) });
  t.equal(out.kind, 'ok');
  const value = JSON.parse((out as { value: { message: { value: Buffer } } }).value.message.value.toString('utf8'));
  t.same({ ...value.order, token: 'x' }, { ...order, token: 'x' }, 'the order unchanged but its token');
  t.equal(value.order.token, '', 'the token gone');
  const kept = createErasedStep(() => listOf([['bot-2', 'erased_visitor_1']])).run({ message: message(order), rows: new RowWriter(16) });
  t.equal(JSON.parse((kept as { value: { message: { value: Buffer } } }).value.message.value.toString('utf8')).order.token, 'erased_visitor_1', "another chatbot's erasure keeps it");
  t.ok(steps(listOf([['bot-1', 'erased_visitor_1']])).names.includes('order'));
});
