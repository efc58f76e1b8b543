/**
 * Auth tokens (ct_…) expire (AUTH_TOKEN_TTL_DAYS, default 30), are listed with the caller's own
 * marked `current`, and are revoked by their user; API keys cannot reach them.
 */
import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { buildTestApp, lastErrorCode } from './helper.js';
import { KEYS, NOW, USERS } from './fixture.js';

const DAY = 86_400_000;

for (const variant of databaseVariants()) {
  t.test(`auth tokens (${variant.name})`, { skip: variant.skip }, async (t) => {
    let now = NOW.getTime();
    const { app, logs, login } = await buildTestApp(t, variant, { clock: () => new Date(now) });
    const issue = async (who = USERS.ann, name?: string) => {
      const res = await app.inject({ method: 'POST', url: '/api/auth/tokens', payload: { ...who, name } });
      t.equal(res.statusCode, 201);
      return res.json().data as { token: string; id: string; expiresAt: string };
    };
    const as = (token: string) => ({ authorization: `Bearer ${token}` });
    const chatbots = (token: string) => app.inject({ method: 'GET', url: '/api/dashboard/chatbots', headers: as(token) });
    const list = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/api/auth/tokens', headers });

    t.test('a token expires after 30 days and then answers 401 like an unknown one', async (t) => {
      const issuedAt = now;
      const { token, expiresAt } = await issue(USERS.ann, 'expiry');
      t.equal(expiresAt, new Date(issuedAt + 30 * DAY).toISOString());
      t.equal((await chatbots(token)).statusCode, 200);
      now = issuedAt + 30 * DAY - 1000;
      t.equal((await chatbots(token)).statusCode, 200, 'valid until its last second');
      now = issuedAt + 30 * DAY;
      const expired = await chatbots(token);
      t.equal(expired.statusCode, 401);
      t.same(expired.json(), { success: false, message: 'Unauthenticated.' });
      t.equal(lastErrorCode(logs), 'DASHBOARD_001');
      now = NOW.getTime();
    });

    t.test('AUTH_TOKEN_TTL_DAYS sets the lifetime', async (t) => {
      const other = await buildTestApp(t, variant, { env: { AUTH_TOKEN_TTL_DAYS: '2' } });
      const res = await other.app.inject({ method: 'POST', url: '/api/auth/tokens', payload: USERS.bob });
      t.equal(res.json().data.expiresAt, new Date(NOW.getTime() + 2 * DAY).toISOString());
    });

    t.test('GET /api/auth/tokens lists the caller\'s tokens, its own marked current, never a secret', async (t) => {
      const first = await issue(USERS.ann, 'laptop');
      const second = await issue(USERS.ann, 'ci');
      const bobs = await issue(USERS.bob, 'bob');
      const res = await list(as(first.token));
      t.equal(res.statusCode, 200);
      const tokens = res.json().data.tokens as Record<string, unknown>[];
      t.notOk(tokens.some((k) => k.id === bobs.id), "another user's token is not listed");
      const mine = tokens.find((k) => k.id === first.id)!;
      t.same(Object.keys(mine), ['id', 'name', 'prefix', 'createdAt', 'lastUsedAt', 'expiresAt', 'current']);
      t.match(mine, { name: 'laptop', prefix: first.token.slice(0, 7), current: true, expiresAt: first.expiresAt });
      t.not(mine.lastUsedAt, null, 'this call used it');
      t.match(tokens.find((k) => k.id === second.id), { name: 'ci', current: false, lastUsedAt: null });
      t.notMatch(res.body, new RegExp(first.token.slice(7)), 'never the token');
      const bySession = await list({ cookie: await login(USERS.ann) });
      t.equal(bySession.statusCode, 200, 'a web session lists them too');
      t.notOk(bySession.json().data.tokens.some((k: { current: boolean }) => k.current), 'none is current for a session');
      now += 31 * DAY;
      const later = (await list(as((await issue(USERS.ann, 'new')).token))).json().data.tokens as { id: string }[];
      t.notOk(later.some((k) => k.id === first.id), 'expired tokens are not listed');
      now = NOW.getTime();
    });

    t.test('DELETE /api/auth/tokens/{id} revokes; another user\'s token is 404', async (t) => {
      const mine = await issue(USERS.ann, 'to revoke');
      const keep = await issue(USERS.ann, 'keep');
      const bobs = await issue(USERS.bob);
      const del = (id: string, token: string) => app.inject({ method: 'DELETE', url: `/api/auth/tokens/${id}`, headers: as(token) });
      t.equal((await del(bobs.id, keep.token)).statusCode, 404, "another user's token");
      t.equal(lastErrorCode(logs), 'DASHBOARD_004');
      t.equal((await del('not-a-uuid', keep.token)).statusCode, 404);
      const res = await del(mine.id, keep.token);
      t.equal(res.statusCode, 200);
      t.match(res.json().data.token, { id: mine.id, name: 'to revoke', current: false });
      t.equal((await chatbots(mine.token)).statusCode, 401, 'its next request gets 401');
      t.equal((await del(mine.id, keep.token)).statusCode, 404, 'already revoked');
      t.equal((await chatbots(bobs.token)).statusCode, 200, "bob's token is untouched");
      const self = await del(keep.id, keep.token);
      t.equal(self.json().data.token.current, true, 'a token may revoke itself');
      t.equal((await chatbots(keep.token)).statusCode, 401);
      const cookie = await login(USERS.ann);
      const viaSession = await issue(USERS.ann);
      const crossSite = await app.inject({ method: 'DELETE', url: `/api/auth/tokens/${viaSession.id}`, headers: { cookie, origin: 'https://evil.example' } });
      t.equal(crossSite.statusCode, 403, 'a session follows the origin rule');
      t.equal(lastErrorCode(logs), 'DASHBOARD_003');
    });

    t.test('API keys belong to no user: 403 on the token routes', async (t) => {
      const token = await issue();
      for (const res of [
        await list({ authorization: `Bearer ${KEYS.a}` }),
        await app.inject({ method: 'DELETE', url: `/api/auth/tokens/${token.id}`, headers: { 'x-api-key': KEYS.a } }),
      ]) {
        t.equal(res.statusCode, 403);
        t.equal(lastErrorCode(logs), 'DASHBOARD_020');
      }
      t.equal((await chatbots(token.token)).statusCode, 200, 'the token was not revoked');
      t.equal((await list({})).statusCode, 401, 'no credential');
    });
  });
}
