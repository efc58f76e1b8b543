import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { buildTestApp, lastErrorCode } from './helper.js';
import { IDS, KEYS } from './fixture.js';

/**
 * The alerts API under /api/dashboard/chatbots/{id}/alerts: the same auth and error rules as
 * the other dashboard endpoints (401, 404 for another account's chatbot, 422 naming fields),
 * each kind's defaults, the secret shown once, PATCH and DELETE.
 */
for (const variant of databaseVariants()) {
  t.test(`alerts API (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, logs } = await buildTestApp(t, variant);
    const ann = { authorization: `Bearer ${KEYS.a}` };
    const bob = { authorization: `Bearer ${KEYS.b}` };
    const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
      app.inject({ method, url: `/api/dashboard${url}`, headers, payload });
    const base = `/chatbots/${IDS.alpha}/alerts`;

    t.test('401 without a credential', async (t) => {
      const res = await api('GET', base, {});
      t.equal(res.statusCode, 401);
      t.equal(lastErrorCode(logs), 'DASHBOARD_001');
    });

    t.test('create each kind with its defaults; the secret is in the creation answer only', async (t) => {
      const silence = await api('POST', base, ann, { kind: 'silence', email: true });
      t.equal(silence.statusCode, 201, silence.body);
      const body = silence.json().data;
      t.match(body.secret, /^whsec_[A-Za-z0-9_-]{32}$/);
      t.match(body.alert, { chatbot_id: IDS.alpha, kind: 'silence', threshold: null, window_minutes: 120, email: true, webhook_url: null, state: 'ok', last_value: null, transitions: [] });
      t.notOk('secret' in body.alert);
      const drop = await api('POST', base, ann, { kind: 'conversion_drop', webhook_url: 'https://hooks.example.com/c' });
      t.match(drop.json().data.alert, { kind: 'conversion_drop', threshold: 50, window_minutes: 1440, email: false, webhook_url: 'https://hooks.example.com/c' });
      const dislike = await api('POST', base, ann, { kind: 'dislike_share', threshold: 40, window_minutes: 60 });
      t.match(dislike.json().data.alert, { kind: 'dislike_share', threshold: 40, window_minutes: 60 });

      const list = await api('GET', base, ann);
      t.equal(list.statusCode, 200);
      const alerts = list.json().data.alerts as Record<string, unknown>[];
      t.same(alerts.map((a) => a.kind), ['silence', 'conversion_drop', 'dislike_share']);
      t.notOk(list.body.includes(body.secret), 'the list never carries a secret');
      t.notOk(alerts.some((a) => 'secret' in a));
    });

    t.test('ab_mismatch only for a chatbot with A/B testing', async (t) => {
      const refused = await api('POST', base, ann, { kind: 'ab_mismatch' });
      t.equal(refused.statusCode, 422);
      t.same(refused.json().errors, { kind: ['ab_mismatch alerts need a chatbot with A/B testing.'] });
      const ab = await api('POST', '/chatbots', ann, { name: 'Split', abTest: true });
      const id = ab.json().data.chatbot.id as string;
      const created = await api('POST', `/chatbots/${id}/alerts`, ann, { kind: 'ab_mismatch' });
      t.equal(created.statusCode, 201);
      t.match(created.json().data.alert, { kind: 'ab_mismatch', threshold: null, window_minutes: 1440 });
    });

    t.test('422 with the fields named', async (t) => {
      for (const [payload, field] of [
        [{ kind: 'silence', window_minutes: 0 }, 'window_minutes'],
        [{ kind: 'silence', window_minutes: 43_201 }, 'window_minutes'],
        [{ kind: 'silence', threshold: 10 }, 'threshold'],
        [{ kind: 'dislike_share', threshold: 0 }, 'threshold'],
        [{ kind: 'dislike_share', threshold: 101 }, 'threshold'],
        [{ kind: 'nope' }, 'kind'],
        [{ kind: 'silence', webhook_url: 'ftp://example.com/' }, 'webhook_url'],
        [{ kind: 'silence', webhook_url: 'http://127.0.0.1:9000/' }, 'webhook_url'],
        [{ kind: 'silence', webhook_url: 'http://169.254.169.254/latest' }, 'webhook_url'],
        [{ kind: 'silence', webhook_url: 'http://localhost/' }, 'webhook_url'],
        [{ kind: 'silence', extra: 1 }, 'extra'],
      ] as const) {
        const res = await api('POST', base, ann, payload);
        t.equal(res.statusCode, 422, JSON.stringify(payload));
        t.ok(Object.keys(res.json().errors ?? {}).includes(field), `${JSON.stringify(payload)} names ${field}: ${res.body}`);
        t.equal(lastErrorCode(logs), 'DASHBOARD_006');
      }
    });

    t.test("another account's chatbot or alert is 404, like an unknown one", async (t) => {
      const mine = (await api('POST', base, ann, { kind: 'silence' })).json().data.alert.id as string;
      for (const [method, url, payload] of [
        ['GET', base, undefined], ['POST', base, { kind: 'silence' }], ['PATCH', `${base}/${mine}`, { email: true }], ['DELETE', `${base}/${mine}`, undefined],
      ] as const) {
        const res = await api(method, url, bob, payload);
        t.equal(res.statusCode, 404, `${method} ${url} as Bob`);
        t.same(res.json(), { success: false, message: 'Not found.' });
        t.equal(lastErrorCode(logs), 'DASHBOARD_004');
      }
      t.equal((await api('PATCH', `/chatbots/${IDS.beta}/alerts/${mine}`, ann, { email: true })).statusCode, 404, 'an alert of another chatbot of the account');
      t.equal((await api('GET', '/chatbots/not-a-uuid/alerts', ann)).statusCode, 404);
      t.equal((await api('DELETE', `${base}/not-a-uuid`, ann)).statusCode, 404);
      t.equal((await api('GET', base, ann)).json().data.alerts.filter((a: { id: string }) => a.id === mine).length, 1, 'still there');
    });

    t.test('PATCH changes threshold, window and channels; DELETE removes', async (t) => {
      const id = (await api('POST', base, ann, { kind: 'dislike_share' })).json().data.alert.id as string;
      const patched = await api('PATCH', `${base}/${id}`, ann, { threshold: 45, window_minutes: 30, email: true, webhook_url: 'https://hooks.example.com/d' });
      t.equal(patched.statusCode, 200, patched.body);
      t.match(patched.json().data.alert, { id, kind: 'dislike_share', threshold: 45, window_minutes: 30, email: true, webhook_url: 'https://hooks.example.com/d' });
      t.match((await api('PATCH', `${base}/${id}`, ann, { webhook_url: null })).json().data.alert, { webhook_url: null, threshold: 45 });
      t.equal((await api('PATCH', `${base}/${id}`, ann, {})).statusCode, 422, 'an empty patch');
      t.equal((await api('PATCH', `${base}/${id}`, ann, { kind: 'silence' })).statusCode, 422, 'the kind stays');
      t.equal((await api('PATCH', `${base}/${id}`, ann, { webhook_url: 'http://10.0.0.1/' })).statusCode, 422);
      const deleted = await api('DELETE', `${base}/${id}`, ann);
      t.same(deleted.json(), { success: true, data: { deleted: true } });
      t.equal((await api('DELETE', `${base}/${id}`, ann)).statusCode, 404);
    });
  });
}
