import t from 'tap';
import { holdoutArmOf } from '@chatlytics/events';
import { createCachedPolicySource } from '../src/policy/policy-cache.js';
import type { ChatbotPolicyRow } from '../src/policy/chatbot-policy.js';
import { buildIngest, type Built } from './helper.js';

// What this proves: the ingest stores the holdout arm it computes from the token and the
// chatbot's settings (services/ingest/README.md, "Holdout"), whatever arm the client claims.
const HELD = '0b5f5ad4-3d6c-4c59-9a43-55d1c7a3c101';
const NONE = '0b5f5ad4-3d6c-4c59-9a43-55d1c7a3c102';
const KEY = 'a3f1c0de-0000-4000-8000-0123456789ab';
const rows = new Map<string, ChatbotPolicyRow>([
  [HELD, { allowedOrigins: [], maxPurchaseEur: 100_000, requireSignedPurchases: false, signingSecret: null, holdoutPercent: 50, holdoutKey: KEY }],
  [NONE, { allowedOrigins: [], maxPurchaseEur: 100_000, requireSignedPurchases: false, signingSecret: null, holdoutPercent: 0, holdoutKey: KEY }],
]);

async function build(t: { teardown(fn: () => Promise<void>): void }): Promise<Built> {
  const policies = createCachedPolicySource({ load: async (id) => rows.get(id) ?? null, log: { warn: () => undefined } });
  const built = await buildIngest({ policies });
  t.teardown(() => built.app.close());
  return built;
}
const published = (b: Built) => b.bus.calls.flat().map((m) => JSON.parse(m.value.toString('utf8')) as Record<string, unknown>);
const tokens = Array.from({ length: 40 }, (_, i) => `holdout-visitor-${String(i).padStart(4, '0')}`);

t.test('a client claiming an arm does not change the stored one', async (t) => {
  const b = await build(t);
  const expected = tokens.map((tok) => holdoutArmOf(KEY, HELD, tok, 50));
  t.ok(expected.includes('holdout') && expected.includes('exposed'), 'the sample has both arms');
  for (const [i, tok] of tokens.entries()) {
    // The opposite arm, claimed every way a client could: top level and in data.
    const claim = expected[i] === 'holdout' ? 'exposed' : 'holdout';
    const res = await b.app.inject({
      method: 'POST', url: '/api/analytics/track', headers: { origin: 'https://shop.example' },
      payload: { event: 'visitor', token: tok, holdout: claim, data: { chatbot_id: HELD, holdout: claim } },
    });
    t.equal(res.statusCode, 200);
  }
  const batch = await b.app.inject({
    method: 'POST', url: '/api/analytics/batch',
    payload: { events: tokens.map((tok) => ({ event: 'popup_displayed', token: tok, holdout: 'holdout', data: { chatbot_id: HELD, holdout: 'holdout' } })) },
  });
  t.equal(batch.statusCode, 200);
  t.equal(batch.json().holdout, expected[0] === 'holdout', "the batch's answer tells its first visitor's arm (the tracker's hint)");
  for (const i of [expected.indexOf('holdout'), expected.indexOf('exposed')]) {
    const one = await b.app.inject({ method: 'POST', url: '/api/analytics/batch', payload: { events: [{ event: 'bot_open', token: tokens[i], data: { chatbot_id: HELD } }] } });
    t.same(one.json(), { success: true, accepted: 1, rejected: [], holdout: expected[i] === 'holdout' }, `arm ${expected[i]}`);
  }
  const stored = published(b).slice(0, tokens.length * 2);
  t.equal(stored.length, tokens.length * 2);
  t.same(stored.map((e) => e.holdout), [...expected, ...expected], 'every stored arm is the ingest\'s, from a browser or a server');
});

t.test('a chatbot at 0 %, an unknown one and an event without chatbot store no arm', async (t) => {
  const b = await build(t);
  for (const chatbotId of [NONE, 'not-a-chatbot', undefined]) {
    const res = await b.app.inject({
      method: 'POST', url: '/api/analytics/track',
      payload: { event: 'visitor', token: tokens[0], holdout: 'holdout', data: { ...(chatbotId ? { chatbot_id: chatbotId } : {}), holdout: 'holdout' } },
    });
    t.equal(res.statusCode, 200);
  }
  t.same(published(b).map((e) => e.holdout), ['', '', '']);
  const batch = await b.app.inject({ method: 'POST', url: '/api/analytics/batch', payload: { events: [{ event: 'visitor', token: tokens[0], data: { chatbot_id: NONE } }] } });
  t.same(batch.json(), { success: true, accepted: 1, rejected: [] }, 'no holdout: the answer has no arm');
});
