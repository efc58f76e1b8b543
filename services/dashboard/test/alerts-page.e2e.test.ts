import t from 'tap';
import Fastify from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng } from '@chatlytics/testkit';
import dashboardApp from '../src/app.js';
import { createAlertRepository } from '../src/alerts/repository.js';
import { alertMailHandlers } from '../src/alerts/mail.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { loadMailTemplates } from '../src/mail/templates.js';
import type { OutgoingMail } from '../src/mail/transport.js';
import { openClickHouse, silentLog } from './stats-fixtures.js';

/**
 * The alerts page of a chatbot (/app/{id}/alerts): linked from the chatbot's views, lists each
 * alert's state and transitions, creates (the secret shown once) and deletes under the origin
 * rule; and the alert e-mails rendered from their MJML templates.
 */
const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const rng = createRng(4404);
const ANN = { email: 'ann@alerts.test', password: 'ann-password' };
const BOB = { email: 'bob@alerts.test', password: 'bob-password' };
const BOT = rng.uuid();
const BOBS_BOT = rng.uuid();
const HOST = '127.0.0.1:3000';
const FORM = { host: HOST, origin: `http://${HOST}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };
const fixture: Fixture = {
  accounts: [
    { id: rng.uuid(), name: 'Shop', users: [{ ...ANN, name: 'Ann' }], chatbots: [{ id: BOT, name: 'Bot <A&B>' }] },
    { id: rng.uuid(), name: 'Other', users: [{ ...BOB, name: 'Bob' }], chatbots: [{ id: BOBS_BOT, name: 'Bobs' }] },
  ],
};
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

const ch = await openClickHouse();
t.teardown(() => ch.close());

for (const variant of databaseVariants()) {
  t.test(`alerts page (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
    const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
    await app.register(dashboardApp, {
      config: loadConfig({ DATA_DIR: tdb.dataDir, SESSION_SECRET: 'x'.repeat(40) }), postgres: tdb.postgres, clickhouse: ch.embedded,
      passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW), passwordReset: { mail: { worker: false } }, alerts: { evaluateIntervalMs: 0 },
    });
    await app.ready();
    t.teardown(() => app.close());
    const login = async (user: typeof ANN) => {
      const res = await app.inject({ method: 'POST', url: '/login', headers: FORM, payload: form(user) });
      const c = res.cookies.find((x) => x.name === 'chatlytics_session')!;
      return `chatlytics_session=${c.value}`;
    };
    const ann = await login(ANN);
    const page = (cookie = ann, id = BOT) => app.inject({ method: 'GET', url: `/app/${id}/alerts`, headers: { cookie, accept: 'text/html', host: HOST } });
    const post = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url: `/app/${BOT}/alerts`, headers: { ...FORM, cookie: ann, ...headers }, payload: form(fields) });

    t.test('linked from the chatbot views; empty list and the form', async (t) => {
      const live = await app.inject({ method: 'GET', url: `/app/${BOT}/live`, headers: { cookie: ann, accept: 'text/html', host: HOST } });
      t.match(live.body, new RegExp(`<a href="/app/${BOT}/alerts">Alerts</a>`));
      const res = await page();
      t.equal(res.statusCode, 200);
      t.match(res.body, /Bot &lt;A&amp;B&gt;: alerts/);
      t.match(res.body, /This chatbot has no alert\./);
      t.match(res.body, new RegExp(`<form method="post" action="/app/${BOT}/alerts"`));
      t.notMatch(res.body, /value="ab_mismatch"/, 'no A/B alert for a chatbot without A/B testing');
    });

    t.test('create: the secret is shown once; the list shows state and transitions', async (t) => {
      const res = await post({ kind: 'dislike_share', threshold: '35', window_minutes: '60', email: 'true', webhook_url: 'https://hooks.example.com/x' });
      t.equal(res.statusCode, 201, res.body);
      const secret = /value="(whsec_[^"]+)"/.exec(res.body)?.[1];
      t.ok(secret, 'the secret is on the answer page');
      const alerts = createAlertRepository({ db: tdb.postgres.db });
      const [row] = await alerts.listForChatbot(BOT);
      t.match(row, { kind: 'dislike_share', threshold: 35, windowMinutes: 60, email: true, webhookUrl: 'https://hooks.example.com/x' });
      await alerts.transition({ ...row, accountId: fixture.accounts[0].id, chatbotName: 'Bot', abTestEnabled: false }, 'firing', 41.5, new Date(NOW), { queueNow: new Date(NOW), appUrl: 'http://x' });
      const listed = await page();
      t.match(listed.body, /data-state="firing"/);
      t.match(listed.body, /dislikes at or above 35 % of reactions over the last 60 minutes/);
      t.match(listed.body, /<td><span class="badge danger" data-state="firing">firing<\/span><\/td><td>41.5 % dislikes<\/td>/);
      t.notOk(listed.body.includes(secret!), 'never shown again');
    });

    t.test('invalid input comes back in the form (422); other origins and accounts are refused', async (t) => {
      const bad = await post({ kind: 'silence', threshold: '20', window_minutes: '0', webhook_url: 'http://127.0.0.1/' });
      t.equal(bad.statusCode, 422);
      t.match(bad.body, /id="window_minutes-error"/);
      const bad2 = await post({ kind: 'silence', threshold: '20' });
      t.equal(bad2.statusCode, 422);
      t.match(bad2.body, /The threshold field does not apply to silence alerts\./);
      const bad3 = await post({ kind: 'silence', webhook_url: 'http://127.0.0.1/' });
      t.match(bad3.body, /must not point to a loopback or private address/);
      const cross = await post({ kind: 'silence' }, { origin: 'https://evil.example' });
      t.equal(cross.statusCode, 403, 'the origin rule');
      t.equal((await page(await login(BOB))).statusCode, 404, "another account's chatbot");
      t.equal((await createAlertRepository({ db: tdb.postgres.db }).listForChatbot(BOT)).length, 1, 'nothing created');
    });

    t.test('edit: threshold, window and channels; an invalid value comes back as the flash', async (t) => {
      const [row] = await createAlertRepository({ db: tdb.postgres.db }).listForChatbot(BOT);
      const edit = (fields: Record<string, string>, cookie = ann) =>
        app.inject({ method: 'POST', url: `/app/${BOT}/alerts/${row.id}`, headers: { ...FORM, cookie }, payload: form(fields) });
      t.match((await page()).body, new RegExp(`<form method="post" action="/app/${BOT}/alerts/${row.id}">`));
      const saved = await edit({ threshold: '50', window_minutes: '30', webhook_url: '' });
      t.equal(saved.statusCode, 302);
      t.equal(saved.headers.location, `/app/${BOT}/alerts`);
      t.match(await createAlertRepository({ db: tdb.postgres.db }).find(BOT, row.id), { threshold: 50, windowMinutes: 30, email: false, webhookUrl: null, state: 'firing' });
      const bad = await edit({ threshold: '500', window_minutes: '30' });
      t.equal(bad.statusCode, 302);
      const flash = bad.cookies.find((c) => c.name === 'chatlytics_flash')!;
      const shown = await page(`${ann}; chatlytics_flash=${flash.value}`);
      t.match(shown.body, /role="alert"/);
      t.match((await createAlertRepository({ db: tdb.postgres.db }).find(BOT, row.id))?.threshold, 50, 'unchanged');
      t.equal((await edit({ window_minutes: '5' }, await login(BOB))).statusCode, 404, "another account's");
      const cross = await app.inject({ method: 'POST', url: `/app/${BOT}/alerts/${row.id}`, headers: { ...FORM, cookie: ann, origin: 'https://evil.example' }, payload: form({ window_minutes: '7' }) });
      t.equal(cross.statusCode, 403, 'the origin rule');
      t.equal((await createAlertRepository({ db: tdb.postgres.db }).find(BOT, row.id))?.windowMinutes, 30, 'unchanged by either');
    });

    t.test('delete', async (t) => {
      const [row] = await createAlertRepository({ db: tdb.postgres.db }).listForChatbot(BOT);
      const bob = await login(BOB);
      const refused = await app.inject({ method: 'POST', url: `/app/${BOT}/alerts/${row.id}/delete`, headers: { ...FORM, cookie: bob }, payload: '' });
      t.equal(refused.statusCode, 404);
      const res = await app.inject({ method: 'POST', url: `/app/${BOT}/alerts/${row.id}/delete`, headers: { ...FORM, cookie: ann }, payload: '' });
      t.equal(res.statusCode, 302);
      t.equal(res.headers.location, `/app/${BOT}/alerts`);
      t.equal((await createAlertRepository({ db: tdb.postgres.db }).listForChatbot(BOT)).length, 0);
    });
  });
}

t.test('the alert e-mails: MJML and text parts, values escaped', async (t) => {
  const sent: OutgoingMail[] = [];
  const handlers = alertMailHandlers({ templates: await loadMailTemplates(), transport: { kind: 'outbox', send: async (m) => { sent.push(m); } }, config: { mail: { from: 'x' } } });
  const job = (state: string) => ({
    id: `job-${state}`, kind: 'alert_notification', status: 'running', attempts: 1, runAt: new Date(), lastError: null, createdAt: new Date(), updatedAt: new Date(),
    payload: { email: 'ann@alerts.test', state, kind: 'conversion_drop', chatbotName: 'Bot <A&B>', value: 42, threshold: 50, windowMinutes: 1440, at: '2026-02-10T08:00:00.000Z', alertsUrl: `http://app/app/${BOT}/alerts` },
  }) as Parameters<(typeof handlers)['alert_notification']>[0];
  await handlers.alert_notification(job('firing'));
  await handlers.alert_notification(job('resolved'));
  t.same(sent.map((m) => [m.to, m.subject, m.idempotencyKey]), [
    ['ann@alerts.test', 'A Chatlytics alert is firing', 'job-firing'], ['ann@alerts.test', 'A Chatlytics alert is resolved', 'job-resolved'],
  ]);
  t.match(sent[0].html, /Bot &lt;A&amp;B&gt;/);
  t.notMatch(sent[0].html, /Bot <A&B>/);
  t.match(sent[0].text, /started firing at 2026-02-10 08:00 UTC/);
  t.match(sent[0].text, /conversion rate with chat over the last 1440 minutes below 50 % of the 7 windows before/);
  t.match(sent[0].text, /Value: 42 % of the baseline rate/);
  t.match(sent[1].text, /was resolved at 2026-02-10 08:00 UTC/);
  t.match(sent[1].html, new RegExp(`href="http://app/app/${BOT}/alerts"`));
});
