/**
 * A chatbot's retention (README.md, "Personal data") through the API: 395 days by default, set
 * by PATCH within 30–1,095 (422 outside, DASHBOARD_006), kept when left out, 404 for another
 * account's chatbot.
 */
import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { buildTestApp, lastErrorCode } from './helper.js';
import { IDS, KEYS } from './fixture.js';

for (const variant of databaseVariants()) {
  t.test(`chatbot retention setting (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, logs } = await buildTestApp(t, variant);
    const api = (method: 'GET' | 'PATCH', key: string, payload?: object) =>
      app.inject({ method, url: `/api/dashboard/chatbots/${IDS.alpha}`, headers: { authorization: `Bearer ${key}` }, payload });

    t.equal((await api('GET', KEYS.a)).json().data.chatbot.retentionDays, 395, 'default 395 days');
    const set = await api('PATCH', KEYS.a, { retentionDays: 90 });
    t.equal(set.statusCode, 200);
    t.equal(set.json().data.chatbot.retentionDays, 90);
    t.equal((await api('PATCH', KEYS.a, { maxPurchaseEur: 5_000 })).json().data.chatbot.retentionDays, 90, 'kept when left out');
    for (const bad of [29, 1096, 0, 'ninety']) {
      const res = await api('PATCH', KEYS.a, { retentionDays: bad });
      t.equal(res.statusCode, 422, JSON.stringify(bad));
      t.ok('retentionDays' in (res.json().errors ?? {}), 'names the field');
      t.equal(lastErrorCode(logs), 'DASHBOARD_006');
    }
    t.equal((await api('PATCH', KEYS.b, { retentionDays: 30 })).statusCode, 404, "another account's chatbot");
    t.equal((await api('GET', KEYS.a)).json().data.chatbot.retentionDays, 90, 'untouched by the refused changes');
  });
}
