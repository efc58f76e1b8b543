import t from 'tap';
import { deliverUntilAccepted } from '../src/delivery.js';
import type { ConsumedBatch } from '../src/index.js';
import { testBackoff, testLog } from './helpers.js';

// Kafka heartbeats only when asked (tulios/kafkajs#447): an attempt waiting on a store that
// refuses for longer than the session timeout must keep the member alive on its own.
const batch: ConsumedBatch = { stream: 'events', partition: 3, messages: [{ partition: 3, offset: '0', key: 'k', value: Buffer.from('v'), timestamp: 0 }] };

t.test('a long handler attempt beats every intervalMs until it settles', async (t) => {
  let beats = 0;
  let release!: () => void;
  const attempt = new Promise<void>((r) => { release = r; });
  const delivering = deliverUntilAccepted(() => attempt, batch, {
    backoff: testBackoff, log: testLog, signal: new AbortController().signal,
    duringAttempt: { intervalMs: 20, beat: async () => { beats++; } },
  });
  await new Promise((r) => setTimeout(r, 230));
  t.ok(beats >= 5, `beats while the attempt runs (${beats})`);
  release();
  t.equal(await delivering, true, 'accepted');
  const after = beats;
  await new Promise((r) => setTimeout(r, 100));
  t.equal(beats, after, 'no beat once the attempt settled');
});

t.test('a failing beat ends delivery at once with its error, without waiting for the attempt', async (t) => {
  const rebalancing = new Error('The group is rebalancing, so a rejoin is needed');
  let beats = 0;
  const started = Date.now();
  const never = new Promise<void>(() => undefined);
  const err = await deliverUntilAccepted(() => never, batch, {
    backoff: testBackoff, log: testLog, signal: new AbortController().signal,
    duringAttempt: { intervalMs: 20, beat: async () => { if (++beats === 3) throw rebalancing; } },
  }).then(() => undefined, (e: unknown) => e);
  t.equal(err, rebalancing, 'the heartbeat error reaches the caller (kafkajs rejoins on it)');
  t.ok(Date.now() - started < 1000, 'promptly');
});
