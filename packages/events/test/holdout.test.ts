import { randomBytes } from 'node:crypto';
import t from 'tap';
import { abGroupOf, createHoldoutAssigner, holdoutArmOf } from '../src/index.js';

// What these prove: the holdout arm is a pure, keyed function of (chatbot, token), its share is
// the configured percentage, and it is independent of the A/B group (the token's last character).
const KEY = 'a3f1c0de-0000-4000-8000-0123456789ab';
const CHATBOT = '11111111-2222-4333-8444-555555555555';
const tokens = (n: number, seed = 1) => {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`tok${seed}_${i.toString(36)}${randomBytes(4).toString('hex')}`);
  return out;
};

t.test('deterministic, keyed and off at 0 %', async (t) => {
  const arms = tokens(200).map((tok) => holdoutArmOf(KEY, CHATBOT, tok, 10));
  const again = tokens(200);
  t.ok(again.every((tok) => holdoutArmOf(KEY, CHATBOT, tok, 10) === holdoutArmOf(KEY, CHATBOT, tok, 10)), 'same input, same arm');
  t.ok(arms.every((a) => a === 'exposed' || a === 'holdout'));
  t.equal(holdoutArmOf(KEY, CHATBOT, 'abcdefgh', 0), '', 'no holdout at 0 %');
  t.equal(holdoutArmOf(KEY, '', 'abcdefgh', 10), '', 'no chatbot, no arm');
  t.equal(holdoutArmOf('', CHATBOT, 'abcdefgh', 10), '', 'no key, no arm');
  // A known value pins the function: a change of the hash input would reshuffle every running holdout.
  // HMAC fractions 0.991, 0.358, 0.190 (computed once with node:crypto).
  t.same(['visitor-token-0001', 'visitor-token-0002', 'visitor-token-0005'].map((tok) => holdoutArmOf(KEY, CHATBOT, tok, 30)),
    ['exposed', 'exposed', 'holdout']);
  t.equal(holdoutArmOf(KEY, CHATBOT, 'visitor-token-0002', 35), 'exposed');
  t.equal(holdoutArmOf(KEY, CHATBOT, 'visitor-token-0002', 36), 'holdout', 'the threshold is the fraction: 0.358 < 0.36');
  const sample = tokens(2000);
  const otherKey = sample.filter((tok) => holdoutArmOf(KEY, CHATBOT, tok, 50) !== holdoutArmOf(`${KEY}x`, CHATBOT, tok, 50)).length;
  t.ok(otherKey > 800 && otherKey < 1200, `another key reshuffles about half the arms at 50 % (${otherKey}/2000)`);
  const otherBot = sample.filter((tok) => holdoutArmOf(KEY, CHATBOT, tok, 50) !== holdoutArmOf(KEY, `${CHATBOT.slice(0, -1)}6`, tok, 50)).length;
  t.ok(otherBot > 800 && otherBot < 1200, `another chatbot too (${otherBot}/2000)`);
});

t.test('a raised percentage only moves exposed visitors into the holdout', async (t) => {
  const sample = tokens(5000);
  const moved = sample.filter((tok) => holdoutArmOf(KEY, CHATBOT, tok, 10) === 'holdout' && holdoutArmOf(KEY, CHATBOT, tok, 20) !== 'holdout');
  t.equal(moved.length, 0, 'every visitor held out at 10 % is held out at 20 %');
});

t.test('the share is the percentage over 100k tokens, and independent of the A/B group', async (t) => {
  const sample = tokens(100_000, 2);
  for (const percent of [5, 10, 50]) {
    const held = sample.filter((tok) => holdoutArmOf(KEY, CHATBOT, tok, percent) === 'holdout').length;
    const share = held / sample.length;
    const se = Math.sqrt((percent / 100) * (1 - percent / 100) / sample.length);
    t.ok(Math.abs(share - percent / 100) < 4 * se, `${percent} %: ${(share * 100).toFixed(2)} % held out (within 4 standard errors)`);
  }
  // Tokens ending in 0 (control) and 1 (test): the held-out share is the same in both groups.
  const byGroup = (g: 'control' | 'test') => {
    const group = sample.map((tok, i) => `${tok}${i % 2}`).filter((tok) => abGroupOf(true, tok) === g);
    return { n: group.length, held: group.filter((tok) => holdoutArmOf(KEY, CHATBOT, tok, 10) === 'holdout').length };
  };
  const c = byGroup('control');
  const s = byGroup('test');
  const p1 = c.held / c.n;
  const p2 = s.held / s.n;
  const pooled = (c.held + s.held) / (c.n + s.n);
  const z = (p1 - p2) / Math.sqrt(pooled * (1 - pooled) * (1 / c.n + 1 / s.n));
  t.ok(Math.abs(z) < 4, `held-out share in control ${(p1 * 100).toFixed(2)} %, in test ${(p2 * 100).toFixed(2)} % (z = ${z.toFixed(2)})`);
});

t.test('the memoised assigner answers as the function', async (t) => {
  const assign = createHoldoutAssigner(10);
  for (const tok of tokens(100)) t.equal(assign(KEY, CHATBOT, tok, 10), holdoutArmOf(KEY, CHATBOT, tok, 10));
  t.equal(assign(KEY, CHATBOT, 'abcdefgh', 0), '');
});
