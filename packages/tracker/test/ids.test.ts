import { randomBytes } from 'node:crypto';
import t from 'tap';
import type { TRACKED_EVENTS } from '@chatlytics/events';
import { abGroupOf, BACKOFF, newToken, parseRetryAfter, retryDelay, TOKEN_PATTERN, uuidv7, type TrackerEvent } from '../src/index.js';

// Compile-time: every event the server stores is a TrackerEvent (typecheck fails on drift).
const everyEventTyped: [Exclude<(typeof TRACKED_EVENTS)[number], TrackerEvent>] extends [never] ? true : false = true;

t.test('uuidv7: version, variant, time prefix in order', async (t) => {
  t.ok(everyEventTyped);
  const a = uuidv7(1_760_000_000_000, new Uint8Array(randomBytes(10)));
  const b = uuidv7(1_760_000_000_001, new Uint8Array(randomBytes(10)));
  t.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.equal(parseInt(a.replace(/-/g, '').slice(0, 12), 16), 1_760_000_000_000, 'the first 48 bits are the milliseconds');
  t.ok(a < b, 'a later millisecond sorts after');
  t.equal(uuidv7(0, new Uint8Array(10)), '00000000-0000-7000-8000-000000000000');
  t.equal(uuidv7(2 ** 48 - 1, new Uint8Array(10).fill(255)), 'ffffffff-ffff-7000-bfff-ffffffffffff', 'the counter (0 when not given) where a v7 may put random bits');
});

t.test('token: 22 characters of [A-Za-z0-9_-], last one 0 or 1 with equal probability', async (t) => {
  const n = 20_000;
  let ones = 0;
  const seen = new Set<string>();
  const firstChars = new Set<string>();
  for (let i = 0; i < n; i++) {
    const token = newToken(new Uint8Array(randomBytes(22)));
    if (!TOKEN_PATTERN.test(token) || token.length !== 22) t.fail(`bad token ${token}`);
    const last = token.at(-1);
    if (last !== '0' && last !== '1') t.fail(`last character ${last}`);
    if (last === '1') ones++;
    seen.add(token);
    firstChars.add(token[0]);
  }
  t.equal(seen.size, n, 'no collision');
  t.equal(firstChars.size, 64, 'every alphabet character occurs');
  // Binomial(20000, 0.5): sd ≈ 71; 5 sd either side fails with probability < 1e-6.
  t.ok(Math.abs(ones - n / 2) < 5 * 71, `${ones} of ${n} in the test group`);
  t.equal(newToken(new Uint8Array(22).fill(255)), '_'.repeat(21) + '1');
});

t.test('abGroup: only with A/B enabled, from the last character', async (t) => {
  t.equal(abGroupOf(true, 'abcdefg0'), 'control');
  t.equal(abGroupOf(true, 'abcdefg1'), 'test');
  t.equal(abGroupOf(true, 'abcdefgx'), null);
  t.equal(abGroupOf(false, 'abcdefg1'), null);
  t.equal(abGroupOf(true, null), null);
});

t.test('backoff: full jitter in [0, min(cap, base·2^n)], Retry-After a floor', async (t) => {
  for (const attempt of [0, 1, 2, 5, 8, 9, 20, 60]) {
    const ceiling = Math.min(BACKOFF.capMs, BACKOFF.baseMs * 2 ** attempt);
    t.equal(retryDelay(attempt, 0, 0), 0, `attempt ${attempt}: the draw 0 waits nothing`);
    t.equal(retryDelay(attempt, 0, 0.999999999), ceiling * 0.999999999, `attempt ${attempt}: ceiling ${ceiling}`);
  }
  t.equal(retryDelay(0, 0, 0.5), 500, 'first retry: half a second for the draw 0.5');
  t.equal(retryDelay(30, 0, 1), 300_000, 'capped at 5 minutes');
  t.equal(retryDelay(0, 5, 0), 5000, 'Retry-After: 5 waits at least 5 s');
  t.equal(retryDelay(3, 5, 0.5), 9000, 'plus the jitter');
  t.equal(retryDelay(20, 5, 1), 300_000, 'still capped');
  t.equal(retryDelay(0, 600, 0.3), 600_000, 'a longer Retry-After is honoured over the cap');
  // Mean of full jitter is half the ceiling: over many clients the retries spread evenly.
  let sum = 0;
  for (let i = 0; i < 10_000; i++) sum += retryDelay(4, 0, Math.random());
  t.ok(Math.abs(sum / 10_000 - 8000) < 400, `mean ${sum / 10_000} ≈ 8000`);
});

t.test('Retry-After parsing: delta seconds only', async (t) => {
  t.equal(parseRetryAfter('5'), 5);
  t.equal(parseRetryAfter('0'), 0);
  t.equal(parseRetryAfter(null), 0);
  t.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT'), 0);
  t.equal(parseRetryAfter('-3'), 0);
});

t.test('uuidv7 with a counter: ids of one millisecond keep their order', async (t) => {
  const ids = [0, 1, 2, 0xfff].map((c) => uuidv7(1_760_000_000_000, new Uint8Array(randomBytes(10)), c));
  t.same([...ids].sort(), ids);
  t.match(ids[3], /^[0-9a-f]{8}-[0-9a-f]{4}-7fff-/);
});
