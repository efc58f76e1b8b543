import t from 'tap';
import { AppError, createLogger } from '@chatlytics/core';
import { backoffDelay, retrying, type RetryContext } from '../src/retry.js';
import { ConsumerErrorCode } from '../src/errors.js';

const ctx = (over: Partial<RetryContext> = {}): RetryContext => ({
  log: createLogger('silent'), backoff: { baseMs: 1, maxMs: 4 }, shouldGiveUp: () => false, ...over,
});
const retriable = () => new AppError('DOWN', 'unavailable', { retriable: true });

t.test('retriable errors are retried until success', async (t) => {
  let calls = 0;
  const retried: string[] = [];
  const result = await retrying('op', ctx({ onRetry: (what) => retried.push(what) }), async () => {
    if (++calls < 4) throw retriable();
    return 'done';
  });
  t.equal(result, 'done');
  t.equal(calls, 4);
  t.same(retried, ['op', 'op', 'op']);
});

t.test('non-retriable errors propagate at once', async (t) => {
  let calls = 0;
  await t.rejects(retrying('op', ctx(), async () => { calls++; throw new AppError('BAD', 'refused'); }), { code: 'BAD' });
  await t.rejects(retrying('op', ctx(), async () => { throw new Error('plain'); }), { message: 'plain' });
  t.equal(calls, 1);
});

t.test('a stopping consumer gives up with a coded error, leaving the batch uncommitted', async (t) => {
  await t.rejects(retrying('insert', ctx({ shouldGiveUp: () => true }), async () => { throw retriable(); }), { code: ConsumerErrorCode.StoppedDuringRetry });
});

t.test('back-off grows exponentially and is capped', async (t) => {
  const opts = { baseMs: 100, maxMs: 10_000 };
  t.equal(backoffDelay(0, opts, () => 0), 50);
  t.equal(backoffDelay(0, opts, () => 1), 100);
  t.equal(backoffDelay(3, opts, () => 1), 800);
  t.equal(backoffDelay(20, opts, () => 1), 10_000);
  t.equal(backoffDelay(1000, opts, () => 0), 5_000, 'no overflow on a long outage');
});
