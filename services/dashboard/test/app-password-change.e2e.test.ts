/**
 * Changing the password on /app/settings (POST /app/settings/password) through HTTP on the real
 * dashboardApp, on PGlite and the PostgreSQL server: the form, a wrong current password and the
 * new-password rules sent back to the settings with the errors (a JSON client: 422), session
 * only, the origin rule, the change itself (old password refused, new one accepted, every other
 * session and auth token ended, API keys kept, this browser still logged in, the e-mail queued)
 * and the rate limit.
 */
import t from 'tap';
import Fastify from 'fastify';
import { sql } from 'drizzle-orm';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng } from '@chatlytics/testkit';
import dashboardApp from '../src/app.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { openClickHouse, silentLog } from './stats-fixtures.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const rng = createRng(2021);
const ANN = { email: 'ann@pw.test', password: 'ann-password' };
const NEW = 'a new passphrase';
const KEY = `ck_${'w'.repeat(30)}`;
const HOST = '127.0.0.1:3000';
const FORM = { host: HOST, origin: `http://${HOST}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };
const fixture: Fixture = {
  accounts: [{ id: rng.uuid(), name: 'Shop', users: [{ ...ANN, name: 'Ann' }], apiKeys: [{ name: 'ci', key: KEY }], chatbots: [{ id: rng.uuid(), name: 'Bot' }] }],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const cookieOf = (res: { cookies: { name: string; value: string }[] }, name: string) => {
  const c = res.cookies.find((x) => x.name === name);
  return c ? `${name}=${c.value}` : '';
};

for (const variant of databaseVariants()) {
  t.test(`change the password on the settings page (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
    const config = loadConfig({ DATA_DIR: tdb.dataDir, SESSION_SECRET: 'x'.repeat(40) });
    const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
    await app.register(dashboardApp, {
      config, postgres: tdb.postgres, clickhouse: ch.embedded, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW), passwordReset: { mail: { worker: false } },
    });
    await app.ready();
    t.teardown(() => app.close());

    const logIn = async (password: string) => app.inject({ method: 'POST', url: '/login', headers: FORM, payload: form({ email: ANN.email, password }) });
    const browser = cookieOf(await logIn(ANN.password), 'chatlytics_session');
    const laptop = cookieOf(await logIn(ANN.password), 'chatlytics_session');
    const token = (await app.inject({ method: 'POST', url: '/api/auth/tokens', payload: ANN })).json().data.token as string;
    const change = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url: '/app/settings/password', headers: { ...FORM, cookie: browser, ...headers }, payload: form(fields) });
    const settings = (cookie: string) => app.inject({ method: 'GET', url: '/app/settings', headers: { cookie, accept: 'text/html', host: HOST } });
    const valid = { current_password: ANN.password, password: NEW, password_confirmation: NEW };

    t.test('the form on the settings page', async (t) => {
      const res = await settings(browser);
      t.match(res.body, /<form class="stacked" method="post" action="\/app\/settings\/password"/);
      t.match(res.body, /id="current_password" name="current_password" type="password" autocomplete="current-password"/);
      t.match(res.body, /id="password" name="password" type="password" autocomplete="new-password"/);
      t.match(res.body, /id="password_confirmation" name="password_confirmation" type="password" autocomplete="new-password"/);
      t.match(res.body, /action="\/app\/send-password-reset"/, 'the reset link stays for a forgotten password');
    });

    t.test('refused: wrong current password, the new-password rules, other origins, guests and keys', async (t) => {
      const wrong = await change({ ...valid, current_password: 'not-it' });
      t.equal(wrong.statusCode, 302);
      t.equal(wrong.headers.location, '/app/settings');
      const shown = await settings(`${browser}; ${cookieOf(wrong, 'chatlytics_flash')}`);
      t.match(shown.body, /id="current_password-error">The password is incorrect\./, 'the error next to the field');
      t.match(shown.body, /id="current_password"[^>]*aria-invalid="true"/);
      t.notMatch(shown.body, /value="not-it"/, 'a password is never sent back');
      for (const [fields, field, message] of [
        [{ ...valid, password: 'short', password_confirmation: 'short' }, 'password', 'The password field must be at least 8 characters.'],
        [{ ...valid, password_confirmation: 'something else' }, 'password', 'The password field confirmation does not match.'],
        [{ password: NEW, password_confirmation: NEW }, 'current_password', 'The current password field is required.'],
      ] as const) {
        const res = await change(fields, { accept: 'application/json' });
        t.equal(res.statusCode, 422, message);
        t.same(res.json().errors[field], [message], `JSON: ${message}`);
        const page = await change(fields);
        t.equal(page.statusCode, 302, `form: back to the settings (${message})`);
      }
      t.equal((await change(valid, { origin: 'http://evil.test' })).statusCode, 403, 'another origin');
      const guest = await app.inject({ method: 'POST', url: '/app/settings/password', headers: { ...FORM, accept: 'application/json' }, payload: form(valid) });
      t.equal(guest.statusCode, 401, 'a guest');
      const key = await app.inject({ method: 'POST', url: '/app/settings/password', headers: { ...FORM, authorization: `Bearer ${KEY}`, accept: 'application/json' }, payload: form(valid) });
      t.equal(key.statusCode, 401, 'an API key is not a session');
      t.equal((await logIn(ANN.password)).statusCode, 302, 'nothing changed: the old password still logs in');
      t.equal((await logIn(NEW)).statusCode, 302, '(a refused log-in also redirects: told apart below by the session cookie)');
      t.equal(cookieOf(await logIn(NEW), 'chatlytics_session'), '', 'the new password does not log in yet');
    });

    t.test('the change: new password, other sessions and tokens ended, this browser still in', async (t) => {
      const res = await change(valid);
      t.equal(res.statusCode, 302);
      t.equal(res.headers.location, '/app/settings');
      const fresh = cookieOf(res, 'chatlytics_session');
      t.ok(fresh && fresh !== browser, 'a new session for this browser');
      const shown = await settings(`${fresh}; ${cookieOf(res, 'chatlytics_flash')}`);
      t.equal(shown.statusCode, 200);
      t.match(shown.body, /Your password has been changed\. Every other session has been logged out\./);
      for (const [name, cookie] of [['the old session of this browser', browser], ['another device', laptop]]) {
        t.equal((await settings(cookie)).headers.location, '/login', `${name}: logged out`);
      }
      t.equal((await app.inject({ method: 'GET', url: '/api/dashboard/chatbots', headers: { authorization: `Bearer ${token}` } })).statusCode, 401, 'the auth token ended');
      t.equal((await app.inject({ method: 'GET', url: '/api/dashboard/chatbots', headers: { authorization: `Bearer ${KEY}` } })).statusCode, 200, 'the API key stays');
      t.equal(cookieOf(await logIn(ANN.password), 'chatlytics_session'), '', 'the old password is refused');
      t.not(cookieOf(await logIn(NEW), 'chatlytics_session'), '', 'the new one logs in');
      const jobs = await tdb.postgres.db.execute(sql`select kind, payload->>'email' as email from jobs where kind = 'password_changed'`);
      t.same((jobs as unknown as { rows: unknown[] }).rows, [{ kind: 'password_changed', email: ANN.email }], 'the "password changed" e-mail is queued');
      const json = await app.inject({
        method: 'POST', url: '/app/settings/password', headers: { ...FORM, cookie: fresh, accept: 'application/json' },
        payload: form({ current_password: NEW, password: ANN.password, password_confirmation: ANN.password }),
      });
      t.same([json.statusCode, json.json().success], [200, true], 'a JSON client gets the message');
    });

    t.test('guessing the current password is rate-limited', async (t) => {
      const fresh = cookieOf(await logIn(ANN.password), 'chatlytics_session');
      let last = 0;
      for (let i = 0; i < 12 && last !== 429; i++) last = (await change({ ...valid, current_password: `guess-${i}` }, { cookie: fresh })).statusCode;
      t.equal(last, 429, 'at most 10 a minute');
    });
  });
}
