import t from 'tap';
import { sql } from 'drizzle-orm';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { sha256Hex } from '../src/crypto/credentials.js';
import { APP_URL, buildTestApp, lastErrorCode, sessionCookieOf, unsign } from './helper.js';
import { IDS, KEYS, NOW, USERS } from './fixture.js';

const rows = <T>(r: unknown) => (r as { rows: T[] }).rows;

for (const variant of databaseVariants()) {
  t.test(`dashboard auth (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, tdb, logs, login } = await buildTestApp(t, variant);
    const chatbots = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/api/dashboard/chatbots', headers });

    t.test('API key via Bearer and X-API-Key; only its digest is stored', async (t) => {
      t.equal((await chatbots({ authorization: `Bearer ${KEYS.a}` })).statusCode, 200);
      t.equal((await chatbots({ authorization: `bearer ${KEYS.a}` })).statusCode, 200, 'scheme is case-insensitive');
      t.equal((await chatbots({ 'x-api-key': KEYS.a })).statusCode, 200);
      t.equal((await chatbots({ 'x-api-key': KEYS.a.slice(0, -1) })).statusCode, 401, 'one character off');
      const stored = rows<{ key_hash: string; prefix: string; last_used_at: Date | null }>(
        await tdb.postgres.db.execute(sql`select key_hash, prefix, last_used_at from api_keys where key_hash = ${sha256Hex(KEYS.a)}`));
      t.equal(stored.length, 1);
      t.equal(stored[0].prefix, KEYS.a.slice(0, 7));
      t.not(stored[0].last_used_at, null, 'use is recorded');
      const leaked = rows(await tdb.postgres.db.execute(sql`select 1 from api_keys where key_hash = ${KEYS.a} or prefix = ${KEYS.a}`));
      t.equal(leaked.length, 0, 'the plain key is stored nowhere');
    });

    t.test('POST /api/auth/tokens issues a ct_ token usable in both headers', async (t) => {
      const res = await app.inject({ method: 'POST', url: '/api/auth/tokens', payload: { email: 'ANN@shop-a.test', password: USERS.ann.password } });
      t.equal(res.statusCode, 201);
      const { success, data } = res.json();
      t.equal(success, true);
      t.match(data.token, /^ct_[A-Za-z0-9_-]{43}$/, '256 bits of base64url');
      t.equal((await chatbots({ authorization: `Bearer ${data.token}` })).json().data.chatbots.length, 2);
      t.equal((await chatbots({ 'x-api-key': data.token })).statusCode, 200);
      const stored = rows<{ token_hash: string }>(await tdb.postgres.db.execute(sql`select token_hash from auth_tokens`));
      t.same(stored.map((r) => r.token_hash), [sha256Hex(data.token)]);
      const second = (await app.inject({ method: 'POST', url: '/api/auth/tokens', payload: { email: USERS.ann.email, password: USERS.ann.password } })).json();
      t.not(second.data.token, data.token, 'every token is new');
    });

    t.test('POST /api/auth/tokens refuses bad credentials and lists missing fields', async (t) => {
      for (const payload of [{ email: USERS.ann.email, password: 'wrong' }, { email: 'nobody@x.test', password: USERS.ann.password }]) {
        const res = await app.inject({ method: 'POST', url: '/api/auth/tokens', payload });
        t.equal(res.statusCode, 422);
        t.same(res.json(), {
          success: false, message: 'These credentials do not match our records.',
          errors: { email: ['These credentials do not match our records.'] },
        }, 'the same answer for a wrong password and an unknown e-mail');
        t.equal(lastErrorCode(logs), 'DASHBOARD_007');
      }
      const login = await app.inject({ method: 'POST', url: '/login', payload: { email: USERS.ann.email } });
      t.equal(login.statusCode, 422, 'JSON login lists missing fields too');
      t.same(login.json().errors, { password: ['The password field is required.'] });
      const res = await app.inject({ method: 'POST', url: '/api/auth/tokens', payload: {} });
      t.equal(res.statusCode, 422);
      t.same(res.json().errors, { email: ['The email field is required.'], password: ['The password field is required.'] });
      const bad = await app.inject({ method: 'POST', url: '/api/auth/tokens', headers: { 'content-type': 'application/json' }, payload: '{"email":' });
      t.equal(bad.statusCode, 400);
      t.same(bad.json(), { success: false, message: 'Malformed request body.' });
    });

    t.test('POST /login (JSON) sets an HttpOnly SameSite=Lax session cookie; only its digest is stored', async (t) => {
      const res = await app.inject({ method: 'POST', url: '/login', payload: USERS.ann });
      t.equal(res.statusCode, 200);
      t.same(res.json(), { success: true });
      const cookie = res.cookies.find((c) => c.name === 'chatlytics_session')!;
      t.equal(cookie.httpOnly, true);
      t.equal(cookie.sameSite, 'Lax');
      t.equal(cookie.path, '/');
      t.notOk(cookie.secure, 'APP_URL is http: no Secure flag');
      const sessionId = unsign(cookie.value).value!;
      const stored = rows<{ id: string }>(await tdb.postgres.db.execute(sql`select id from sessions`));
      t.ok(stored.some((r) => r.id === sha256Hex(sessionId)));
      t.notOk(stored.some((r) => r.id === sessionId || r.id === cookie.value));
      const viaCookie = await chatbots({ cookie: sessionCookieOf(res) });
      t.equal(viaCookie.statusCode, 200, 'the session is accepted on /api/dashboard');
      const tampered = `chatlytics_session=${cookie.value.slice(0, -2)}xx`;
      t.equal((await chatbots({ cookie: tampered })).statusCode, 401, 'a cookie with a bad signature is refused');
      t.equal((await chatbots({ cookie: `chatlytics_session=${sessionId}` })).statusCode, 401, 'an unsigned id is refused');
    });

    t.test('POST /login (form): redirects to the intended page, or back with an error', async (t) => {
      const form = (body: string, headers: Record<string, string> = {}) => app.inject({
        method: 'POST', url: '/login', payload: body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      });
      const creds = `email=${encodeURIComponent(USERS.ann.email)}&password=${USERS.ann.password}`;
      let res = await form(creds);
      t.equal(res.statusCode, 302);
      t.equal(res.headers.location, '/settings/profile');
      t.ok(res.cookies.some((c) => c.name === 'chatlytics_session'));
      res = await form(creds, { referer: `${APP_URL}/app/data-sources?tab=2` });
      t.equal(res.headers.location, '/app/data-sources?tab=2', 'back to the page it came from');
      res = await form(`${creds}&redirect=${encodeURIComponent('/app/chatbots')}`);
      t.equal(res.headers.location, '/app/chatbots');
      res = await form(`${creds}&redirect=${encodeURIComponent('//evil.test/x')}`, { referer: 'https://evil.test/' });
      t.equal(res.headers.location, '/settings/profile', 'no open redirect');
      res = await form(`email=${encodeURIComponent(USERS.ann.email)}&password=wrong`, { referer: `${APP_URL}/login` });
      t.equal(res.statusCode, 302);
      t.equal(res.headers.location, '/login');
      t.notOk(res.cookies.some((c) => c.name === 'chatlytics_session'), 'no session for bad credentials');
      const flash = res.cookies.find((c) => c.name === 'chatlytics_flash')!;
      t.same(JSON.parse(unsign(flash.value).value!), {
        errors: { email: ['These credentials do not match our records.'] }, old: { email: USERS.ann.email },
      });
      res = await form('email=');
      t.equal(res.statusCode, 302, 'missing fields also go back to the form');
      t.same(JSON.parse(unsign(res.cookies.find((c) => c.name === 'chatlytics_flash')!.value).value!).errors, {
        email: ['The email field is required.'], password: ['The password field is required.'],
      });
    });

    t.test('cross-origin POSTs with the session cookie get 403', async (t) => {
      const cookie = await login();
      const evil = { origin: 'https://evil.test', cookie };
      const search = await app.inject({ method: 'POST', url: '/app/data-sources/search-test', headers: evil, payload: { chatbot_id: IDS.alpha, query: 'shoes' } });
      t.equal(search.statusCode, 403);
      t.same(search.json(), { success: false, message: 'Forbidden.' });
      t.equal(lastErrorCode(logs), 'DASHBOARD_003');
      t.equal((await app.inject({ method: 'POST', url: '/logout', headers: evil })).statusCode, 403);
      t.equal((await app.inject({ method: 'POST', url: '/login', headers: { origin: 'https://evil.test' }, payload: USERS.ann })).statusCode, 403);
      const same = await app.inject({ method: 'POST', url: '/app/data-sources/search-test', headers: { origin: APP_URL, cookie }, payload: { chatbot_id: IDS.alpha, query: 'shoes' } });
      t.equal(same.statusCode, 200, "APP_URL's own origin is fine");
      t.equal((await chatbots({ origin: 'https://evil.test', cookie })).statusCode, 200, 'GETs are not checked');
    });

    t.test('POST /logout ends the session', async (t) => {
      const cookie = await login();
      const res = await app.inject({ method: 'POST', url: '/logout', headers: { cookie, accept: 'application/json' } });
      t.equal(res.statusCode, 200);
      t.same(res.json(), { success: true });
      const cleared = res.cookies.find((c) => c.name === 'chatlytics_session')!;
      t.equal(cleared.value, '');
      t.equal((await chatbots({ cookie })).statusCode, 401, 'the old cookie no longer works');
      const form = await app.inject({ method: 'POST', url: '/logout', headers: { cookie: await login() } });
      t.equal(form.statusCode, 302);
      t.equal(form.headers.location, '/login');
    });

    t.test('expired sessions and tokens are refused', async (t) => {
      const cookie = await login();
      await tdb.postgres.db.execute(sql`update sessions set expires_at = ${new Date(NOW.getTime() - 1000)}`);
      t.equal((await chatbots({ cookie })).statusCode, 401);
      const { token } = (await app.inject({ method: 'POST', url: '/api/auth/tokens', payload: USERS.ann })).json().data;
      await tdb.postgres.db.execute(sql`update auth_tokens set expires_at = ${new Date('2026-01-01T00:00:00Z')} where token_hash = ${sha256Hex(token)}`);
      t.equal((await chatbots({ authorization: `Bearer ${token}` })).statusCode, 401);
    });
  });
}
