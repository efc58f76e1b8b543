/**
 * API key scopes: `read` (the default) opens the GET routes (statistics and listings) only;
 * every route that changes state answers 403 (`DASHBOARD_019`) to it and changes nothing;
 * `manage` keys, auth tokens and sessions may do everything.
 */
import t from 'tap';
import { sql } from 'drizzle-orm';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { buildTestApp, lastErrorCode } from './helper.js';
import { IDS, KEYS, USERS } from './fixture.js';

for (const variant of databaseVariants()) {
  t.test(`API key scopes (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, tdb, logs, login } = await buildTestApp(t, variant, { env: { SQL_KEY_ADMINS: USERS.ann.email } });
    const api = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
      app.inject({ method, url: `/api/dashboard${url}`, headers, payload });
    const create = async (body: object) => {
      const res = await api('POST', '/api-keys', { authorization: `Bearer ${KEYS.a}` }, body);
      t.equal(res.statusCode, 201);
      return res.json().data.key as { id: string; key: string; scope: string };
    };
    const count = async (table: 'chatbots' | 'api_keys' | 'sql_api_keys') =>
      Number((await tdb.postgres.db.execute(sql`select count(*)::int as n from ${sql.identifier(table)}`) as unknown as { rows: { n: number }[] }).rows[0].n);

    const read = await create({ name: 'reporting' });
    const manage = await create({ name: 'ops', scope: 'manage' });
    const victim = await create({ name: 'victim' });

    t.test('a new key reads unless asked for more; the scope is listed', async (t) => {
      t.equal(read.scope, 'read');
      t.equal(manage.scope, 'manage');
      const keys = (await api('GET', '/api-keys', { authorization: `Bearer ${KEYS.a}` })).json().data.keys as { id: string; scope: string }[];
      t.equal(keys.find((k) => k.id === read.id)?.scope, 'read');
      t.equal(keys.find((k) => k.id === manage.id)?.scope, 'manage');
      const bad = await api('POST', '/api-keys', { authorization: `Bearer ${KEYS.a}` }, { name: 'x', scope: 'admin' });
      t.equal(bad.statusCode, 422);
      t.same(Object.keys(bad.json().errors), ['scope']);
    });

    t.test('read key: every GET route answers', async (t) => {
      const headers = { authorization: `Bearer ${read.key}` };
      for (const url of ['/chatbots', `/chatbots/${IDS.alpha}`, '/api-keys', '/data-sources', `/data-sources/${IDS.catalog}`]) {
        t.equal((await api('GET', url, headers)).statusCode, 200, `GET ${url}`);
      }
    });

    t.test('read key: every route that changes state is 403 DASHBOARD_019, and nothing changes', async (t) => {
      const before = { chatbots: await count('chatbots'), keys: await count('api_keys'), sql: await count('sql_api_keys') };
      for (const headers of [{ authorization: `Bearer ${read.key}` }, { 'x-api-key': read.key }] as Record<string, string>[]) {
        for (const [method, url, body] of [
          ['POST', '/chatbots', { name: 'Nope' }],
          ['POST', '/api-keys', { name: 'escalate', scope: 'manage' }],
          ['DELETE', `/api-keys/${victim.id}`, undefined],
          ['DELETE', `/api-keys/${read.id}`, undefined],
          ['POST', '/sql-keys', { name: 'nope' }],
          ['DELETE', `/sql-keys/${IDS.alpha}`, undefined],
          ['POST', '/chatbots', { name: '' }],
        ] as const) {
          const res = await api(method, url, headers, body);
          t.equal(res.statusCode, 403, `${method} ${url}`);
          t.same(res.json(), { success: false, message: 'This API key may only read: create a key with the manage scope for this.' });
          t.equal(lastErrorCode(logs), 'DASHBOARD_019');
        }
      }
      t.same({ chatbots: await count('chatbots'), keys: await count('api_keys'), sql: await count('sql_api_keys') }, before);
    });

    t.test('manage key, auth token and session may change state', async (t) => {
      t.equal((await api('POST', '/chatbots', { authorization: `Bearer ${manage.key}` }, { name: 'By manage key' })).statusCode, 201);
      const token = (await app.inject({ method: 'POST', url: '/api/auth/tokens', payload: USERS.ann })).json().data.token;
      t.equal((await api('POST', '/chatbots', { authorization: `Bearer ${token}` }, { name: 'By token' })).statusCode, 201, 'a token has its user\'s rights');
      const cookie = await login(USERS.ann);
      t.equal((await api('POST', '/chatbots', { cookie }, { name: 'By session' })).statusCode, 201);
      t.equal((await api('DELETE', `/api-keys/${victim.id}`, { authorization: `Bearer ${manage.key}` })).statusCode, 200, 'a manage key revokes');
      t.equal((await api('GET', '/chatbots', { authorization: `Bearer ${victim.key}` })).statusCode, 401);
      const sqlKey = await api('POST', '/sql-keys', { cookie }, { name: 'analyst' });
      t.equal(sqlKey.statusCode, 201, 'a listed admin\'s session manages SQL keys');
      t.equal((await api('POST', '/sql-keys', { authorization: `Bearer ${manage.key}` }, { name: 'other' })).statusCode, 403, 'a key belongs to no admin');
      t.equal(lastErrorCode(logs), 'DASHBOARD_017');
    });

    t.test('an invalid credential is still 401 before the scope check', async (t) => {
      t.equal((await api('POST', '/chatbots', { authorization: 'Bearer ck_nope' }, { name: 'x' })).statusCode, 401);
    });
  });
}
