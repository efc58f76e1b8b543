import t from 'tap';
import { BusUnavailableError } from '@chatlytics/bus';
import { createLogger } from '@chatlytics/core';
import { waitForBus } from '../src/bus-ready.js';
import { FakeBus } from './helper.js';

t.test('waitForBus retries prepare() with a growing, capped delay until the bus is ready', async (t) => {
  const bus = new FakeBus();
  let calls = 0;
  bus.prepare = async () => {
    if (++calls <= 5) throw new BusUnavailableError('no leader yet');
  };
  const delays: number[] = [];
  await waitForBus(bus, createLogger('silent'), async (ms) => { delays.push(ms); });
  t.equal(calls, 6, 'prepared once after five refusals');
  t.same(delays, [500, 1000, 2000, 4000, 5000], 'doubling from 500 ms, capped at 5 s');
});

t.test('waitForBus returns at once when the bus is ready', async (t) => {
  const delays: number[] = [];
  await waitForBus(new FakeBus(), createLogger('silent'), async (ms) => { delays.push(ms); });
  t.same(delays, [], 'no wait');
});
