import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { buildTestApp, lastErrorCode } from './helper.js';
import { IDS, KEYS, USERS } from './fixture.js';
import { TRACKER_STUB } from '../src/chatbots/presenter.js';

/**
 * The management API: chatbot creation with its embed snippet, and the account's API keys
 * (create shows the key once; list never shows it; revoke makes it answer 401). Every answer is
 * scoped to the caller's account.
 */
for (const variant of databaseVariants()) {
  t.test(`management API (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, logs, login } = await buildTestApp(t, variant, { env: { INGEST_PUBLIC_URL: 'https://track.example.com/' } });
    const ann = { authorization: `Bearer ${KEYS.a}` };
    const bob = { 'x-api-key': KEYS.b };
    const api = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
      app.inject({ method, url: `/api/dashboard${url}`, headers, payload });

    t.test('401 without a valid credential, before any validation', async (t) => {
      for (const [method, url, body] of [['POST', '/chatbots', {}], ['GET', '/api-keys', undefined], ['POST', '/api-keys', {}], ['DELETE', `/api-keys/${IDS.alpha}`, undefined]] as const) {
        const res = await api(method, url, { authorization: 'Bearer ck_nope' }, body);
        t.equal(res.statusCode, 401, `${method} ${url}`);
        t.same(res.json(), { success: false, message: 'Unauthenticated.' });
        t.equal(lastErrorCode(logs), 'DASHBOARD_001');
      }
    });

    t.test('create a chatbot: 201 with the exact tracker snippet; listed for its account only', async (t) => {
      const res = await api('POST', '/chatbots', ann, { name: '  Shoe helper ', language: 'de', abTest: true });
      t.equal(res.statusCode, 201);
      const { chatbot, embed } = res.json().data;
      t.match(chatbot, { name: 'Shoe helper', language: 'de', status: 'active', conversations: 0, integratedAt: null, abTestEnabled: true });
      t.match(chatbot.id, /^[0-9a-f-]{36}$/);
      t.same(embed, {
        trackerUrl: 'https://track.example.com/tracker.js',
        snippet: `${TRACKER_STUB}\n<script async src="https://track.example.com/tracker.js" data-chatbot-id="${chatbot.id}" data-ab-test="true"></script>`,
      });
      const plain = (await api('POST', '/chatbots', ann, { name: 'Plain' })).json().data;
      t.equal(plain.chatbot.language, 'en', 'default language');
      t.equal(plain.chatbot.abTestEnabled, false);
      t.equal(plain.embed.snippet, `${TRACKER_STUB}\n<script async src="https://track.example.com/tracker.js" data-chatbot-id="${plain.chatbot.id}"></script>`);

      const own = await api('GET', `/chatbots/${chatbot.id}`, ann);
      t.equal(own.statusCode, 200, 'readable by its account');
      const other = await api('GET', `/chatbots/${chatbot.id}`, bob);
      t.equal(other.statusCode, 404, "another account's chatbot does not exist");
      t.equal(lastErrorCode(logs), 'DASHBOARD_004');
      t.notOk((await api('GET', '/chatbots', bob)).json().data.chatbots.some((c: { id: string }) => c.id === chatbot.id));
      // The session (the dashboard front end) creates too.
      const cookie = await login(USERS.ann);
      const bySession = await api('POST', '/chatbots', { cookie, origin: 'http://localhost:3000' }, { name: 'From the browser' });
      t.equal(bySession.statusCode, 201);
      const crossSite = await api('POST', '/chatbots', { cookie, origin: 'https://evil.example' }, { name: 'x' });
      t.equal(crossSite.statusCode, 403);
      t.equal(lastErrorCode(logs), 'DASHBOARD_003');
    });

    t.test('create a chatbot: 422 lists every invalid field', async (t) => {
      const res = await api('POST', '/chatbots', ann, { name: '', language: 'German', abTest: 'maybe', extra: 1 });
      t.equal(res.statusCode, 422);
      t.equal(lastErrorCode(logs), 'DASHBOARD_006');
      const body = res.json();
      t.equal(body.message, 'The given data was invalid.');
      t.ok(body.errors.name && body.errors.language && body.errors.abTest, JSON.stringify(body.errors));
      t.equal((await api('POST', '/chatbots', ann, { name: '   ' })).statusCode, 422, 'a blank name');
      t.equal((await api('POST', '/chatbots', ann, {})).statusCode, 422, 'no name');
    });

    t.test('API keys: shown once, stored hashed, listed without the key, revoked → 401', async (t) => {
      const created = await api('POST', '/api-keys', ann, { name: 'shop backend' });
      t.equal(created.statusCode, 201);
      const { key } = created.json().data;
      t.match(key.key, /^ck_[A-Za-z0-9_-]{43}$/);
      t.match(key, { name: 'shop backend', prefix: key.key.slice(0, 7), lastUsedAt: null });

      const works = await api('GET', '/chatbots', { authorization: `Bearer ${key.key}` });
      t.equal(works.statusCode, 200, 'the new key opens the JSON API');
      t.ok(works.json().data.chatbots.some((c: { name: string }) => c.name === 'Alpha'), "and sees its account's chatbots");

      const list = await api('GET', '/api-keys', ann);
      t.equal(list.statusCode, 200);
      t.notOk(list.body.includes(key.key), 'the key is never listed');
      t.notOk(/[0-9a-f]{64}/.test(list.body), 'nor its digest');
      const listed = list.json().data.keys.find((k: { id: string }) => k.id === key.id);
      t.ok(listed.lastUsedAt, 'last use is shown');
      t.same(list.json().data.keys.map((k: { name: string }) => k.name).sort(), ['ci', 'shop backend']);
      t.notOk((await api('GET', '/api-keys', bob)).body.includes(key.id), "another account's list does not show it");

      const foreign = await api('DELETE', `/api-keys/${key.id}`, bob);
      t.equal(foreign.statusCode, 404, "another account cannot revoke it");
      t.equal(lastErrorCode(logs), 'DASHBOARD_004');
      t.equal((await api('DELETE', '/api-keys/not-a-uuid', ann)).statusCode, 404);
      const revoked = await api('DELETE', `/api-keys/${key.id}`, ann);
      t.equal(revoked.statusCode, 200);
      t.equal(revoked.json().data.key.id, key.id);
      const after = await api('GET', '/chatbots', { authorization: `Bearer ${key.key}` });
      t.equal(after.statusCode, 401, 'a revoked key answers 401');
      t.equal(lastErrorCode(logs), 'DASHBOARD_001');
      t.equal((await api('DELETE', `/api-keys/${key.id}`, ann)).statusCode, 404, 'revoking twice');
      const bad = await api('POST', '/api-keys', ann, { name: '' });
      t.equal(bad.statusCode, 422);
      t.ok(bad.json().errors.name);
    });
  });
}
