/**
 * On the real engines (embedded bus, chdb with the checked-in migrations): a visitor erased
 * after its events were consumed (erased_tokens, then its rows deleted as the dashboard's job
 * does) stays erased through a replay of the whole bus and through messages still on it, and
 * the aggregates equal what `cli verify` computes from events throughout.
 */
import t from 'tap';
import { eraseTokenRows, markTokenErased, verifyAggregates } from '@chatlytics/clickhouse';
import { storedEvent, toMessage } from './events.js';
import { consumerFor, silent, until } from './helpers.js';
import { embeddedBus, migratedChdb, tempDir } from './real-engines.js';
import { replay } from '../src/replay.js';

const chdbDir = tempDir('consumer-erasure-chdb-');
const busDir = tempDir('consumer-erasure-bus-');
t.teardown(() => { chdbDir.remove(); busDir.remove(); });

const ERASED = 'erased_visitor_42';
const rowsOf = async (ch: Awaited<ReturnType<typeof migratedChdb>>, token: string) =>
  Number((await ch.query<{ n: string }>('SELECT count() AS n FROM events WHERE token = {t:String}', { t: token }))[0].n);

t.test('a replay after an erasure does not bring the visitor back', async (t) => {
  const ch = await migratedChdb(chdbDir.dir);
  const bus = await embeddedBus(busDir.dir, 50);
  t.teardown(async () => { await bus.close(); await ch.close(); });
  const kinds = ['visitor', 'convo_started', 'purchase', 'bot_open'] as const;
  const sent = Array.from({ length: 200 }, (_, i) => storedEvent(i, {
    token: i % 4 === 0 ? ERASED : `kept_visitor_${i % 7}`, event: kinds[i % kinds.length],
    order_num: kinds[i % kinds.length] === 'purchase' ? `order-${i % 9}` : '',
  }));
  await bus.publish(sent.map(toMessage));
  const consumer = consumerFor(bus, ch);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  t.equal(await rowsOf(ch, ERASED), 50);
  t.same(await verifyAggregates(ch), [], 'consistent before');

  await markTokenErased(ch, 'bot-1', ERASED);
  const removed = await eraseTokenRows(ch, { chatbotId: 'bot-1', token: ERASED, erasureId: 'test-erasure-1' });
  t.match(removed, { events: 50, tokenIds: 1 });
  t.equal(await rowsOf(ch, ERASED), 0);
  t.same(await verifyAggregates(ch), [], 'consistent after the erasure');

  const summary = await replay({ bus, clickhouse: ch, from: new Date(0), stream: 'events', log: silent, slotClaimSettleMs: 0 });
  t.match(summary, { messages: 200, inserted: 0 });
  t.equal(await rowsOf(ch, ERASED), 0, 'the replay did not restore the visitor');
  t.equal(Number((await ch.query<{ n: string }>('SELECT count() AS n FROM token_ids WHERE token = {t:String}', { t: ERASED }))[0].n), 0, 'nor its id');

  await bus.publish([toMessage(storedEvent(900, { token: ERASED, order_num: '' })), toMessage(storedEvent(901, { token: 'kept_visitor_1', order_num: '' }))]);
  const again = consumerFor(bus, ch);
  await again.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await again.stop();
  t.equal(await rowsOf(ch, ERASED), 0, 'a message still on the bus is dropped');
  t.equal(await rowsOf(ch, 'kept_visitor_1'), sent.filter((e) => e.token === 'kept_visitor_1').length + 1, 'other visitors go on');
  t.same(await verifyAggregates(ch), [], 'consistent at the end');
});
