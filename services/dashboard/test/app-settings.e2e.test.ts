/**
 * The settings and onboarding pages (/app/settings, /app/chatbots/new) through HTTP on the real
 * dashboardApp: a key created on the page works against the JSON API until it is revoked on the
 * page, another account's key is a 404, form errors come back in the form (422), user text is
 * escaped, the CSP holds, and cross-origin form posts are refused.
 */
import t from 'tap';
import Fastify from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng } from '@chatlytics/testkit';
import dashboardApp from '../src/app.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { embedFor } from '../src/chatbots/presenter.js';
import { escapeHtml } from '../src/html/html.js';
import { openClickHouse, silentLog } from './stats-fixtures.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const rng = createRng(1920);
const IDS = { accountA: rng.uuid(), accountB: rng.uuid(), accountC: rng.uuid(), bot: rng.uuid(), other: rng.uuid() };
const EVIL = '<script>alert(1)</script>"\'&';
const ANN = { email: 'ann@shop-a.test', password: 'ann-password' };
const CY = { email: 'cy@shop-c.test', password: 'cy-password' };
const KEY_A = `ck_${'a'.repeat(30)}`;
const KEY_B = `ck_${'b'.repeat(30)}`;
const HOST = '127.0.0.1:3000';
const FORM = { host: HOST, origin: `http://${HOST}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };

const fixture: Fixture = {
  accounts: [
    { id: IDS.accountA, name: 'Shop A', users: [{ ...ANN, name: 'Ann' }], apiKeys: [{ name: 'ci', key: KEY_A }], chatbots: [{ id: IDS.bot, name: 'Shop bot' }] },
    { id: IDS.accountB, name: 'Shop B', apiKeys: [{ name: 'theirs', key: KEY_B }], chatbots: [{ id: IDS.other, name: 'Other bot' }] },
    { id: IDS.accountC, name: 'Shop C', users: [{ ...CY, name: 'Cy' }] },
  ],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

for (const variant of databaseVariants()) {
  t.test(`settings and onboarding pages (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
    const config = loadConfig({ DATA_DIR: tdb.dataDir, SESSION_SECRET: 'x'.repeat(40) });
    const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
    await app.register(dashboardApp, { config, postgres: tdb.postgres, clickhouse: ch.embedded, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW) });
    await app.ready();
    t.teardown(() => app.close());

    const logIn = async (who: { email: string; password: string }) => {
      const res = await app.inject({ method: 'POST', url: '/login', headers: FORM, payload: form(who) });
      t.equal(res.statusCode, 302, `${who.email} logs in`);
      return `chatlytics_session=${res.cookies.find((c) => c.name === 'chatlytics_session')?.value}`;
    };
    const cookie = await logIn(ANN);
    const page = (url: string, extra = '') => app.inject({ method: 'GET', url, headers: { cookie: extra ? `${cookie}; ${extra}` : cookie, accept: 'text/html', host: HOST } });
    const post = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url, headers: { ...FORM, cookie, ...headers }, payload: form(fields) });
    const api = (url: string, key: string, method: 'GET' | 'DELETE' = 'GET') => app.inject({ method, url: `/api/dashboard${url}`, headers: { authorization: `Bearer ${key}` } });
    const keysOf = async (key: string) => (await api('/api-keys', key)).json().data.keys as { id: string; name: string; prefix: string }[];
    const flashOf = (res: { cookies: { name: string; value: string }[] }) => {
      const flash = res.cookies.find((c) => c.name === 'chatlytics_flash');
      return flash ? `chatlytics_flash=${flash.value}` : '';
    };
    const pages: Record<string, { headers: Record<string, unknown>; body: string }> = {};

    t.test('API keys: created on the page, shown once, working, revoked on the page', async (t) => {
      const settings = await page('/app/settings');
      t.equal(settings.statusCode, 200);
      t.match(settings.body, /<code>ck_a+…<\/code>|<code>ck_[^<]*…<\/code>/, 'the fixture key by its prefix');
      t.notOk(settings.body.includes(KEY_A), 'never the key itself');
      t.match(settings.body, /href="\/settings\/profile"/, 'the profile page is linked');
      t.match(settings.body, /action="\/app\/send-password-reset"/, 'the password reset link is one button away');
      t.match(settings.body, /href="\/app\/settings"/, 'the navigation links the settings');

      const created = await post('/app/settings/api-keys', { name: EVIL });
      t.equal(created.statusCode, 201);
      const key = /id="new-key"[^>]*value="(ck_[^"]+)"/.exec(created.body)?.[1];
      t.ok(key, 'the key is on the result page');
      t.match(created.body, /shown only this once/, 'with the copy hint');
      t.notOk(created.body.includes('<script>alert(1)'), 'the name is escaped');
      pages.settings = settings;
      pages.created = created;

      t.equal((await api('/chatbots', key!)).statusCode, 200, 'the new key reads the JSON API');
      const listed = await page('/app/settings');
      t.ok(listed.body.includes(escapeHtml(EVIL)), 'the list shows the name, escaped');
      t.notOk(listed.body.includes('<script>alert(1)'));
      t.notOk(listed.body.includes(key!), 'the list never shows the key again');
      const id = (await keysOf(KEY_A)).find((k) => k.name === EVIL)!.id;
      t.match(listed.body, new RegExp(`href="/app/settings/api-keys/${id}/revoke"`));

      const confirm = await page(`/app/settings/api-keys/${id}/revoke`);
      t.equal(confirm.statusCode, 200, 'revoking asks first');
      t.match(confirm.body, new RegExp(`<form method="post" action="/app/settings/api-keys/${id}/revoke">`));
      pages.confirm = confirm;
      t.equal((await api('/chatbots', key!)).statusCode, 200, 'the confirm page alone revokes nothing');

      const revoked = await post(`/app/settings/api-keys/${id}/revoke`, {});
      t.equal(revoked.statusCode, 302);
      t.equal(revoked.headers.location, '/app/settings', 'redirect after post');
      const after = await page('/app/settings', flashOf(revoked));
      t.match(after.body, /role="status">API key &quot;&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot;&#39;&amp;&quot; revoked\./, 'the flash names the key, escaped');
      const refused = await api('/chatbots', key!);
      t.equal(refused.statusCode, 401, 'the revoked key is refused');
      t.same(refused.json(), { success: false, message: 'Unauthenticated.' });
      const again = await post(`/app/settings/api-keys/${id}/revoke`, {});
      t.equal(again.statusCode, 404, 'a revoked key is gone');
      t.match(again.body, /<h1>Not found\.<\/h1>/);
    });

    t.test("another account's or an unknown key id: the 404 page, nothing revoked", async (t) => {
      const theirs = (await keysOf(KEY_B))[0].id;
      for (const id of [theirs, rng.uuid(), 'not-a-uuid']) {
        for (const res of [await page(`/app/settings/api-keys/${id}/revoke`), await post(`/app/settings/api-keys/${id}/revoke`, {})]) {
          t.equal(res.statusCode, 404, id);
          t.match(res.headers['content-type'], /text\/html/);
          t.match(res.body, /<h1>Not found\.<\/h1>/);
          t.notOk(res.body.includes('theirs'), 'nothing of the other account');
        }
      }
      t.equal((await api('/chatbots', KEY_B)).statusCode, 200, "the other account's key still works");
    });

    t.test('key form errors: 422 with the message at the field', async (t) => {
      const before = (await keysOf(KEY_A)).length;
      for (const [name, message] of [['', 'The name field is required.'], ['   ', 'The name field is invalid.'], ['x'.repeat(101), 'The name field must not be greater than 100 characters.']]) {
        const res = await post('/app/settings/api-keys', { name });
        t.equal(res.statusCode, 422, JSON.stringify(name.slice(0, 5)));
        t.match(res.body, /id="name" name="name" type="text" maxlength="100" value="[^"]*" aria-invalid="true" aria-describedby="name-hint name-error"/);
        t.ok(res.body.includes(`id="name-error" role="alert">${message}</p>`), message);
      }
      t.equal((await keysOf(KEY_A)).length, before, 'no key was created');
    });

    t.test('onboarding: the form creates a chatbot, the snippet page shows its tag', async (t) => {
      const list = await page('/app');
      t.match(list.body, /<a class="add" href="\/app\/chatbots\/new">Add a chatbot<\/a>/, 'the list links the form');
      const blank = await page('/app/chatbots/new');
      t.equal(blank.statusCode, 200);
      pages.onboarding = blank;

      const res = await post('/app/chatbots', { name: ` ${EVIL} `, language: 'de', abTest: 'true' });
      t.equal(res.statusCode, 302);
      const id = /^\/app\/([0-9a-f-]{36})\/setup$/.exec(String(res.headers.location))?.[1];
      t.ok(id, 'redirect to the new chatbot\'s snippet page');
      const setup = await page(`/app/${id}/setup`, flashOf(res));
      t.equal(setup.statusCode, 200);
      pages.setup = setup;
      t.match(setup.body, /role="status">Chatbot created\./);
      // No APP_URL here (a local start): the tag points at the loopback address the page was opened at.
      const embed = embedFor(`http://${HOST}`, id!, true);
      t.ok(setup.body.includes(`>${escapeHtml(embed.snippet)}</textarea>`), 'the snippet of the API at the address in use, with data-ab-test');
      t.notSame(config.ingestPublicUrl, `http://${HOST}`, 'and not the default APP_URL');
      t.match(embed.snippet, /data-ab-test="true"/);
      t.ok(setup.body.includes(`<code id="chatbot-id">${id}</code>`));
      t.ok(setup.body.includes(`href="/app/${id}/analytics"`), 'a link to its analytics');
      t.notOk(setup.body.includes('<script>alert(1)'), 'the name is escaped');
      t.equal((await page(`/app/${id}/analytics`)).statusCode, 200, 'the analytics page exists');

      const detail = (await api(`/chatbots/${id}`, KEY_A)).json().data.chatbot;
      t.same([detail.name, detail.language], [EVIL, 'de'], 'created like the API does (name trimmed)');
      const listed = await page('/app');
      t.ok(listed.body.includes(`<a href="/app/${id}/analytics">${escapeHtml(EVIL)}</a>`), 'the chatbot is in the list');
      t.equal((await page(`/app/${IDS.other}/setup`)).statusCode, 404, "another account's chatbot: 404");
      t.equal((await page(`/app/${rng.uuid()}/setup`)).statusCode, 404, 'an unknown chatbot: 404');
    });

    t.test('onboarding form errors: 422, every field, values kept', async (t) => {
      const before = (await api('/chatbots', KEY_A)).json().data.chatbots.length;
      const res = await post('/app/chatbots', { name: '', language: 'english', abTest: 'true' });
      t.equal(res.statusCode, 422);
      t.ok(res.body.includes('id="name-error" role="alert">The name field is required.</p>'));
      t.ok(res.body.includes('id="language-error" role="alert">The language field is invalid.</p>'));
      t.match(res.body, /id="language" name="language" type="text" maxlength="10" value="english" aria-invalid="true"/, 'the value is kept');
      t.match(res.body, /id="abTest" name="abTest" type="checkbox" value="true" checked/);
      const long = await post('/app/chatbots', { name: 'y'.repeat(101) });
      t.equal(long.statusCode, 422);
      t.ok(long.body.includes('The name field must not be greater than 100 characters.'));
      t.equal((await api('/chatbots', KEY_A)).json().data.chatbots.length, before, 'nothing created');
    });

    t.test('an account without chatbots: the list points to onboarding', async (t) => {
      const cy = await logIn(CY);
      const res = await app.inject({ method: 'GET', url: '/app', headers: { cookie: cy, accept: 'text/html' } });
      t.match(res.body, /no chatbot yet\. <a href="\/app\/chatbots\/new">Add a chatbot<\/a>/);
    });

    t.test('cross-origin form posts: 403 page, nothing changed', async (t) => {
      const keys = (await keysOf(KEY_A)).length;
      const bots = (await api('/chatbots', KEY_A)).json().data.chatbots.length;
      const keyId = (await keysOf(KEY_A))[0].id;
      for (const [url, fields] of [['/app/settings/api-keys', { name: 'evil' }], ['/app/chatbots', { name: 'evil' }], [`/app/settings/api-keys/${keyId}/revoke`, {}]] as const) {
        const res = await post(url, fields, { origin: 'http://evil.test' });
        t.equal(res.statusCode, 403, url);
        t.match(res.body, /<h1>Forbidden\.<\/h1>/, url);
      }
      t.equal((await keysOf(KEY_A)).length, keys, 'no key created or revoked');
      t.equal((await api('/chatbots', KEY_A)).json().data.chatbots.length, bots, 'no chatbot created');
    });

    t.test('every page: CSP without inline scripts or styles; guests go to /login', async (t) => {
      t.same(Object.keys(pages).sort(), ['confirm', 'created', 'onboarding', 'settings', 'setup']);
      for (const [name, res] of Object.entries(pages)) {
        const csp = String(res.headers['content-security-policy']);
        t.match(csp, /script-src 'self'/, `${name}: CSP`);
        t.notMatch(csp, /unsafe-inline/, name);
        t.notMatch(res.body, /<script(?![^>]*(src=|type="application\/json"))/, `${name}: every script is a file`);
        t.notMatch(res.body, /\sstyle="/, `${name}: no style attributes`);
        t.equal(res.headers['cache-control'], 'no-store', name);
      }
      for (const url of ['/app/settings', '/app/chatbots/new', `/app/${IDS.bot}/setup`]) {
        const guest = await app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
        t.equal(guest.headers.location, '/login', url);
        const key = await app.inject({ method: 'GET', url, headers: { accept: 'text/html', authorization: `Bearer ${KEY_A}` } });
        t.equal(key.headers.location, '/login', `${url}: a key is not a session`);
      }
    });
  });
}
