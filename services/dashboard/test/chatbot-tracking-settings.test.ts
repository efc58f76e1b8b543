import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createChatbotPolicyRepository } from '@chatlytics/ingest';
import { buildTestApp, lastErrorCode } from './helper.js';
import { IDS, KEYS } from './fixture.js';

/**
 * A chatbot's tracking settings through the API: allowed origins, the EUR cap of one purchase,
 * signed purchases with a secret shown once (never again, by any read), and what the tracking
 * endpoint then reads from the same rows.
 */
for (const variant of databaseVariants()) {
  t.test(`chatbot tracking settings (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, logs, tdb } = await buildTestApp(t, variant);
    const ann = { authorization: `Bearer ${KEYS.a}` };
    const bob = { 'x-api-key': KEYS.b };
    const api = (method: 'GET' | 'POST' | 'PATCH', url: string, headers: Record<string, string>, payload?: object) =>
      app.inject({ method, url: `/api/dashboard${url}`, headers, payload });
    const policies = createChatbotPolicyRepository({ db: tdb.postgres.db });

    t.test('defaults: any origin, 100,000 EUR, signatures not required, no secret', async (t) => {
      const { chatbot } = (await api('GET', `/chatbots/${IDS.alpha}`, ann)).json().data;
      t.match(chatbot, { allowedOrigins: [], maxPurchaseEur: 100_000, requireSignedPurchases: false, holdoutPercent: 0, hasSigningSecret: false });
      const { holdoutKey, ...policy } = (await policies.find(IDS.alpha))!;
      t.same(policy, { allowedOrigins: [], maxPurchaseEur: 100_000, requireSignedPurchases: false, signingSecret: null, holdoutPercent: 0 });
      t.match(holdoutKey, /^[0-9a-f-]{36}$/, 'every chatbot has its own random holdout key');
      t.not((await policies.find(IDS.beta))?.holdoutKey, holdoutKey, "another chatbot's key differs");
      t.equal(await policies.find('not-a-uuid'), null, 'free text names no chatbot');
    });

    t.test('round trip: the settings changed through the API are what GET shows and the ingest reads', async (t) => {
      const res = await api('PATCH', `/chatbots/${IDS.alpha}`, ann, { allowedOrigins: ['https://shop.example/', '*.shop.example'], maxPurchaseEur: 2_500.5 });
      t.equal(res.statusCode, 200);
      t.match(res.json().data.chatbot, { id: IDS.alpha, allowedOrigins: ['https://shop.example', '*.shop.example'], maxPurchaseEur: 2_500.5, requireSignedPurchases: false });
      t.notOk('signingSecret' in res.json().data);
      t.match((await api('GET', `/chatbots/${IDS.alpha}`, ann)).json().data.chatbot, { allowedOrigins: ['https://shop.example', '*.shop.example'], maxPurchaseEur: 2_500.5 });
      t.match(await policies.find(IDS.alpha), { allowedOrigins: ['https://shop.example', '*.shop.example'], maxPurchaseEur: 2_500.5 });
      const keep = await api('PATCH', `/chatbots/${IDS.alpha}`, ann, { maxPurchaseEur: 3_000 });
      t.same(keep.json().data.chatbot.allowedOrigins, ['https://shop.example', '*.shop.example'], 'a field left out keeps its value');
      const key = (await policies.find(IDS.alpha))?.holdoutKey;
      t.equal((await api('PATCH', `/chatbots/${IDS.alpha}`, ann, { holdoutPercent: 15 })).json().data.chatbot.holdoutPercent, 15);
      t.match(await policies.find(IDS.alpha), { holdoutPercent: 15, holdoutKey: key }, 'the ingest reads the holdout; its key stays, so arms stay');
      await api('PATCH', `/chatbots/${IDS.alpha}`, ann, { holdoutPercent: 0 });
    });

    t.test('signed purchases: turning them on generates the secret, shown once; rotation replaces it; no read shows it', async (t) => {
      const on = await api('PATCH', `/chatbots/${IDS.alpha}`, ann, { requireSignedPurchases: true });
      t.equal(on.statusCode, 200);
      const first = on.json().data.signingSecret as string;
      t.match(first, /^cps_[A-Za-z0-9_-]{43}$/);
      t.match(on.json().data.chatbot, { requireSignedPurchases: true, hasSigningSecret: true });
      t.equal((await policies.find(IDS.alpha))?.signingSecret, first, 'the ingest verifies with it');

      const again = await api('PATCH', `/chatbots/${IDS.alpha}`, ann, { requireSignedPurchases: true });
      t.notOk('signingSecret' in again.json().data, 'not shown a second time');
      const rotated = await api('POST', `/chatbots/${IDS.alpha}/signing-secret`, ann);
      t.equal(rotated.statusCode, 201);
      const second = rotated.json().data.signingSecret as string;
      t.not(second, first);
      t.equal((await policies.find(IDS.alpha))?.signingSecret, second, 'the old secret no longer verifies');

      const reads = [await api('GET', `/chatbots/${IDS.alpha}`, ann), await api('GET', '/chatbots', ann), again];
      for (const r of reads) t.notOk(r.body.includes(first) || r.body.includes(second) || r.body.includes('cps_'), 'the secret never appears in a read');
      t.equal((await api('POST', `/chatbots/${IDS.alpha}/signing-secret`, bob)).statusCode, 404, "another account's chatbot does not exist");
      t.equal((await api('PATCH', `/chatbots/${IDS.alpha}`, bob, { maxPurchaseEur: 1 })).statusCode, 404);
      t.equal(lastErrorCode(logs), 'DASHBOARD_004');
      t.equal((await policies.find(IDS.alpha))?.maxPurchaseEur, 3_000, 'untouched by the refused change');
    });

    t.test('a new chatbot may ask for signed purchases at once: its secret is in the 201', async (t) => {
      const res = await api('POST', '/chatbots', ann, { name: 'Signed', requireSignedPurchases: true, allowedOrigins: ['shop.example'] });
      t.equal(res.statusCode, 201);
      const { chatbot, signingSecret } = res.json().data;
      t.match(signingSecret, /^cps_/);
      t.match(chatbot, { requireSignedPurchases: true, hasSigningSecret: true, allowedOrigins: ['shop.example'] });
      t.notOk('signingSecret' in (await api('POST', '/chatbots', ann, { name: 'Plain' })).json().data);
    });

    t.test('422 for an origin that is not one, a cap that is not positive, an unknown field', async (t) => {
      for (const body of [
        { allowedOrigins: ['https://shop.example/path'] }, { allowedOrigins: ['shop example'] }, { allowedOrigins: [{}] },
        { maxPurchaseEur: 0 }, { maxPurchaseEur: -5 }, { requireSignedPurchases: 'yes' }, { signingSecret: 'mine' },
      ]) {
        const res = await api('PATCH', `/chatbots/${IDS.alpha}`, ann, body);
        t.equal(res.statusCode, 422, JSON.stringify(body));
        t.equal(lastErrorCode(logs), 'DASHBOARD_006');
      }
    });
  });
}
