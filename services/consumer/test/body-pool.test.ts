import t from 'tap';
import { returnBody, takeBody } from '../src/body-pool.js';

t.test('a returned body is handed out again; sizes go up in powers of two', async (t) => {
  const a = takeBody(100_000);
  t.equal(a.length, 128 * 1024, 'rounded up so the next batches of about this size fit it');
  returnBody(a);
  t.ok(takeBody(120_000) === a, 'the same Buffer, not a new allocation');
  t.ok(takeBody(120_000) !== a, 'and only once: it is not in the pool any more');
});

t.test('the pool keeps at most three bodies and 128 MiB, the largest first', async (t) => {
  // Identity checks with t.ok: t.equal would print megabytes of Buffer on a failure.
  const bodies = [1, 2, 4, 8].map((mib) => takeBody(mib * 1024 * 1024));
  for (const b of bodies) returnBody(b);
  t.ok(takeBody(8 * 1024 * 1024) === bodies[3], 'the largest was kept');
  t.ok(takeBody(1) === bodies[2], 'then the next largest');
  t.ok(takeBody(1) === bodies[1]);
  t.ok(takeBody(1) !== bodies[0], 'the smallest of four was dropped');
  const huge = [takeBody(64 * 1024 * 1024), takeBody(64 * 1024 * 1024), takeBody(64 * 1024 * 1024)];
  for (const b of huge) returnBody(b);
  t.ok(takeBody(64 * 1024 * 1024) === huge[0]);
  t.ok(takeBody(64 * 1024 * 1024) === huge[1]);
  t.ok(takeBody(64 * 1024 * 1024) !== huge[2], '192 MiB would exceed the byte cap: the third was dropped');
});
