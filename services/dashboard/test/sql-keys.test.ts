import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createSqlKeyRepository } from '../src/repositories/sql-key-repository.js';
import { buildTestApp, lastErrorCode } from './helper.js';
import { KEYS, USERS } from './fixture.js';

const DEFAULTS = { queriesPerHour: 1000, readRowsPerHour: 1e11 };

for (const variant of databaseVariants()) {
  t.test(`SQL keys: management API and resolution (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, tdb, logs, login } = await buildTestApp(t, variant, { env: { SQL_KEY_ADMINS: USERS.ann.email } });
    const ann = { cookie: await login(USERS.ann) };
    const bob = { cookie: await login(USERS.bob) };
    const repo = createSqlKeyRepository({ db: tdb.postgres.db });
    const api = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
      app.inject({ method, url: `/api/dashboard${url}`, headers: { ...headers, origin: 'http://localhost:3000' }, payload });

    t.test('only SQL_KEY_ADMINS manage keys; account keys never do', async (t) => {
      t.equal((await api('GET', '/sql-keys', {})).statusCode, 401);
      const forBob = await api('GET', '/sql-keys', bob);
      t.equal(forBob.statusCode, 403);
      t.same(forBob.json(), { success: false, message: 'Forbidden.' });
      t.equal(lastErrorCode(logs), 'DASHBOARD_017');
      t.equal((await api('GET', '/sql-keys', { authorization: `Bearer ${KEYS.a}` })).statusCode, 403, 'an account API key has no user');
    });

    t.test('create shows the key once, stores its digest; list never shows it', async (t) => {
      const res = await api('POST', '/sql-keys', ann, { name: 'analyst', queriesPerHour: 50 });
      t.equal(res.statusCode, 201);
      const { key } = res.json().data;
      t.match(key, { name: 'analyst', queriesPerHour: 50, readRowsPerHour: null, expiresAt: null, revokedAt: null });
      t.match(key.key, /^cs_[A-Za-z0-9_-]{43}$/);
      t.equal(key.prefix, key.key.slice(0, 7));
      const list = await api('GET', '/sql-keys', ann);
      t.equal(list.statusCode, 200);
      t.notOk(JSON.stringify(list.json()).includes(key.key), 'the key is not listed');
      t.same(list.json().data.keys.map((k: { name: string }) => k.name), ['analyst']);
      t.same(await repo.resolve(key.key, DEFAULTS), { name: 'analyst', quota: { queriesPerHour: 50, readRowsPerHour: 1e11 } });
      t.equal(await repo.resolve(`${key.key}x`, DEFAULTS), null, 'unknown key');
      const dup = await api('POST', '/sql-keys', ann, { name: 'analyst' });
      t.equal(dup.statusCode, 422);
      t.ok(dup.json().errors.name, 'a name is unique among active keys');
      const bad = await api('POST', '/sql-keys', ann, { name: 'has space', expiresAt: 'tomorrow' });
      t.equal(bad.statusCode, 422);
      const past = await api('POST', '/sql-keys', ann, { name: 'old', expiresAt: '2020-01-01T00:00:00Z' });
      t.same(past.json().errors, { expiresAt: ['The expiry must be in the future.'] });
    });

    t.test('revoked and expired keys resolve to nothing (the SQL interface answers 401)', async (t) => {
      const made = await repo.create({ name: 'short-lived', expiresAt: new Date(Date.now() + 60_000) });
      t.ok(made);
      t.same(await repo.resolve(made!.key, DEFAULTS), { name: 'short-lived', quota: undefined });
      t.equal(await repo.resolve(made!.key, DEFAULTS, new Date(Date.now() + 120_000)), null, 'expired');
      const revoke = await api('DELETE', `/sql-keys/${made!.id}`, ann);
      t.equal(revoke.statusCode, 200);
      t.ok(revoke.json().data.key.revokedAt);
      t.equal(await repo.resolve(made!.key, DEFAULTS), null, 'revoked');
      t.equal((await api('DELETE', `/sql-keys/${made!.id}`, ann)).statusCode, 404, 'revoking twice');
      const again = await repo.create({ name: 'short-lived' });
      t.ok(again, 'the name of a revoked key can be used again');
    });

    t.test('a SQL key is not a dashboard credential', async (t) => {
      const made = await repo.create({ name: 'not-dashboard' });
      t.equal((await api('GET', '/chatbots', { authorization: `Bearer ${made!.key}` })).statusCode, 401);
    });
  });
}
