import t from 'tap';
import { toolsUnderTest } from '../src/testing.js';

t.test('toolsUnderTest: runs when the programs exist, skips locally when one is missing, fails under CI', async (t) => {
  const ci = process.env.CI;
  t.teardown(() => { if (ci === undefined) delete process.env.CI; else process.env.CI = ci; });
  delete process.env.CI;
  t.same(toolsUnderTest('node'), { skip: false }, 'node is on PATH');
  t.match(toolsUnderTest('node', 'no-such-program-h17'), { skip: /no-such-program-h17 not found/ }, 'skipped locally');
  process.env.CI = 'true';
  t.throws(() => toolsUnderTest('no-such-program-h17'), /no-such-program-h17 must be installed under CI/, 'a failure under CI');
});
