import t from 'tap';
import { runReplayCommand, replay } from '../src/replay.js';
import { FakeBus, FakeClickHouse } from './fakes.js';
import { events, toMessage } from './events.js';
import { consumerFor, silent, until } from './helpers.js';
import { ConsumerErrorCode } from '../src/errors.js';

t.test('runReplayCommand parses --from/--stream and refuses bad arguments with a coded error', async (t) => {
  const bus = new FakeBus(1);
  const clickhouse = new FakeClickHouse();
  const deps = { bus, clickhouse, log: silent };
  await bus.publish(events(3).map(toMessage));
  t.match(await runReplayCommand(['--from', '2020-01-01T00:00:00Z'], deps), { stream: 'events', from: '2020-01-01T00:00:00.000Z', messages: 3, inserted: 3 });
  t.match(await runReplayCommand(['--from=2020-01-01', '--stream=dead-letter'], deps), { stream: 'dead-letter', messages: 0 });
  for (const bad of [[], ['--from'], ['--from', 'yesterday'], ['--from', '5'], ['--from', '2020-01-01', '--stream', 'other'], ['--to', 'x']]) {
    await t.rejects(runReplayCommand(bad, deps), { code: ConsumerErrorCode.BadReplayArgs }, JSON.stringify(bad));
  }
});

t.test('replay fences every batch: twice in a row, and beside the consumer, nothing is doubled', async (t) => {
  const bus = new FakeBus(3, 40);
  const clickhouse = new FakeClickHouse();
  await bus.publish(events(300).map(toMessage));
  const consumer = consumerFor(bus, clickhouse);
  await consumer.start();
  await until(async () => (await bus.lag()) === 0, 'lag 0');
  await consumer.stop();
  const a = await replay({ bus, clickhouse, from: new Date(0), stream: 'events', log: silent, slotClaimSettleMs: 0 });
  const b = await replay({ bus, clickhouse, from: new Date(0), stream: 'events', log: silent, slotClaimSettleMs: 0 });
  t.match(a, { messages: 300, inserted: 0, duplicates: 300 });
  t.match(b, { messages: 300, inserted: 0, duplicates: 300 });
  t.equal(clickhouse.events.length, 300);
  const future = await replay({ bus, clickhouse, from: new Date(Date.now() + 60_000), stream: 'events', log: silent, slotClaimSettleMs: 0 });
  t.match(future, { messages: 0, inserted: 0 }, 'nothing after --from');
});
