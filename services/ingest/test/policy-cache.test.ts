import t from 'tap';
import { createCachedPolicySource } from '../src/policy/policy-cache.js';
import { DEFAULT_CHATBOT_POLICY, type ChatbotPolicyRow } from '../src/policy/chatbot-policy.js';

const row = (maxPurchaseEur: number): ChatbotPolicyRow => ({ allowedOrigins: ['https://shop.example'], maxPurchaseEur, requireSignedPurchases: true, signingSecret: 's' });

function harness(opts: { maxEntries?: number } = {}) {
  let clock = 1_000_000;
  const reads: string[] = [];
  const state = { failing: false, hanging: false, row: row(500) as ChatbotPolicyRow | null };
  const warnings: object[] = [];
  let failures = 0;
  const source = createCachedPolicySource({
    load: async (id) => {
      reads.push(id);
      if (state.hanging) return new Promise(() => undefined);
      if (state.failing) throw new Error('connection refused');
      return id.startsWith('known') ? state.row : null;
    },
    log: { warn: (obj: object) => { warnings.push(obj); } },
    ttlMs: 15_000, retryMs: 2_000, loadTimeoutMs: 50, now: () => clock,
    onLoadFailure: () => { failures++; },
    ...opts,
  });
  return { source, reads, state, warnings, advance: (ms: number) => { clock += ms; }, failures: () => failures };
}

t.test('one read per chatbot per TTL, concurrent misses share it, unknown chatbots are cached too', async (t) => {
  const h = harness();
  const [a, b] = await Promise.all([h.source.policyOf('known-1'), h.source.policyOf('known-1')]);
  t.equal(a, b);
  t.equal(a.maxPurchaseEur, 500);
  t.notOk(a.origins.isAllowed('https://evil.example'));
  t.equal(await h.source.policyOf('made-up'), DEFAULT_CHATBOT_POLICY);
  await h.source.policyOf('made-up');
  await h.source.policyOf('known-1');
  t.same(h.reads, ['known-1', 'made-up'], 'one read each within the TTL');
  h.state.row = row(900);
  h.advance(15_001);
  t.equal((await h.source.policyOf('known-1')).maxPurchaseEur, 900, 'a change in the app applies after the TTL');
  t.same(h.reads, ['known-1', 'made-up', 'known-1']);
});

t.test('bounded: the least recently used chatbot is forgotten first', async (t) => {
  const h = harness({ maxEntries: 2 });
  await h.source.policyOf('known-a');
  await h.source.policyOf('known-b');
  await h.source.policyOf('known-a');
  await h.source.policyOf('known-c');
  t.equal(h.source.size, 2);
  await h.source.policyOf('known-a');
  await h.source.policyOf('known-b');
  t.same(h.reads, ['known-a', 'known-b', 'known-c', 'known-b'], 'b was the least recently used');
});

t.test('the database away: the last known policy is served, else the defaults; a hanging read times out; tracking never waits long', async (t) => {
  const h = harness();
  await h.source.policyOf('known-1');
  h.state.failing = true;
  h.advance(15_001);
  const stale = await h.source.policyOf('known-1');
  t.equal(stale.maxPurchaseEur, 500, 'last known');
  t.ok(stale.requireSignedPurchases, 'signatures stay required during the outage');
  t.equal(await h.source.policyOf('known-2'), DEFAULT_CHATBOT_POLICY, 'never read: the defaults');
  t.equal(h.failures(), 2);
  t.equal(h.warnings.length, 1, 'warned once per retry interval');
  await h.source.policyOf('known-1');
  t.equal(h.reads.length, 3, 'not retried before the retry interval');

  h.state.failing = false;
  h.state.hanging = true;
  h.advance(2_001);
  const started = Date.now();
  t.equal((await h.source.policyOf('known-1')).maxPurchaseEur, 500, 'a read that does not answer counts as failed');
  t.ok(Date.now() - started < 1_000);

  h.state.hanging = false;
  h.advance(2_001);
  t.equal((await h.source.policyOf('known-2')).maxPurchaseEur, 500, 'read again once the database answers');
});
