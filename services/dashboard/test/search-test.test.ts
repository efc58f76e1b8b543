import t from 'tap';
import { sql } from 'drizzle-orm';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { buildTestApp, lastErrorCode } from './helper.js';
import { IDS, KEYS, USERS } from './fixture.js';

const URL = '/app/data-sources/search-test';

for (const variant of databaseVariants()) {
  t.test(`POST ${URL} (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, tdb, logs, login } = await buildTestApp(t, variant);
    const cookieA = await login();
    const cookieB = await login(USERS.bob);
    const search = (payload: unknown, cookie = cookieA, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url: URL, headers: { cookie, ...headers }, payload: payload as object });

    t.test("ranks the chatbot's chunks best first, across its data sources and children", async (t) => {
      const res = await search({ chatbot_id: IDS.alpha, query: 'running shoes' });
      t.equal(res.statusCode, 200);
      const body = res.json();
      t.same(Object.keys(body).sort(), ['docs', 'summary']);
      t.equal(body.summary, '');
      t.same(body.docs.map((d: { content: string; name: string }) => [d.name, d.content]), [
        ['Catalog', 'Trail running shoes for muddy paths; running shoes, shoes, shoes'],
        ['Catalog', 'Red running shoes with extra cushioning'],
        ['Shipping page', 'We ship running shoes worldwide'],
      ], "neither Beta's FAQ nor account B's chunks; equal scores fall back to data source name");
      t.same(body.docs.map((d: { search_position: number }) => d.search_position), [1, 2, 3]);
      for (const d of body.docs) {
        t.equal(d.origin, 'postgres_fts');
        t.same(d.filters, []);
        t.equal(typeof d.score, 'number');
        t.ok(d.score > 0);
      }
      t.ok(body.docs[0].score > body.docs[1].score, 'the chunk repeating the terms ranks higher');
      t.ok(body.docs[1].score >= body.docs[2].score);
    });

    t.test('document_count limits the results; stemming and web-search syntax work', async (t) => {
      const one = (await search({ chatbot_id: IDS.alpha, query: 'running shoes', document_count: 1 })).json();
      t.equal(one.docs.length, 1);
      t.match(one.docs[0].content, /^Trail/);
      const stemmed = (await search({ chatbot_id: IDS.alpha, query: 'sock' })).json();
      t.same(stemmed.docs.map((d: { content: string }) => d.content), ['Blue cotton socks, pack of three']);
      const negated = (await search({ chatbot_id: IDS.alpha, query: 'shoes -trail' })).json();
      t.equal(negated.docs.length, 2, '"-trail" excludes the trail chunk');
      const none = (await search({ chatbot_id: IDS.alpha, query: 'the' })).json();
      t.same(none, { docs: [], summary: '' }, 'a query of stop words finds nothing, without an error');
      const beta = (await search({ chatbot_id: IDS.beta, query: 'running' })).json();
      t.same(beta.docs.map((d: { name: string }) => d.name), ['FAQ']);
      const b = (await search({ chatbot_id: IDS.gamma, query: 'running shoes' }, cookieB)).json();
      t.same(b.docs.map((d: { name: string }) => d.name), ['B catalog'], "account B searches its own chatbot");
    });

    t.test('form posts work like JSON ones', async (t) => {
      const res = await app.inject({
        method: 'POST', url: URL, headers: { cookie: cookieA, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `chatbot_id=${IDS.alpha}&query=running+shoes&document_count=2`,
      });
      t.equal(res.statusCode, 200);
      t.equal(res.json().docs.length, 2);
    });

    t.test('422 lists every invalid field', async (t) => {
      let res = await search({});
      t.equal(res.statusCode, 422);
      t.same(res.json(), {
        success: false, message: 'The given data was invalid.',
        errors: { chatbot_id: ['The chatbot id field is required.'], query: ['The query field is required.'] },
      });
      t.equal(lastErrorCode(logs), 'DASHBOARD_006');
      res = await search({ chatbot_id: 'nope', query: 'x'.repeat(5001), document_count: 0 });
      t.same(res.json().errors, {
        chatbot_id: ['The chatbot id field must be a valid UUID.'],
        query: ['The query field must not be greater than 5000 characters.'],
        document_count: ['The document count field must be at least 1.'],
      });
      res = await search({ chatbot_id: IDS.alpha, query: '', document_count: 51 });
      t.same(res.json().errors, {
        query: ['The query field is required.'],
        document_count: ['The document count field must not be greater than 50.'],
      });
      res = await search({ chatbot_id: IDS.alpha, query: 'shoes', document_count: 'many' });
      t.same(res.json().errors, { document_count: ['The document count field must be an integer.'] });
      t.equal((await search({ chatbot_id: IDS.alpha, query: 'x'.repeat(5000) })).statusCode, 200, '5000 characters are allowed');
    });

    t.test("404 for another account's chatbot or an unknown one", async (t) => {
      for (const [chatbotId, cookie] of [[IDS.gamma, cookieA], [IDS.alpha, cookieB], ['0a000000-0000-4000-8000-00000000ffff', cookieA]]) {
        const res = await search({ chatbot_id: chatbotId, query: 'running shoes' }, cookie);
        t.equal(res.statusCode, 404);
        t.same(res.json(), { success: false, message: 'Not found.' });
      }
    });

    t.test('web session only: API keys and tokens get 401, as does no session', async (t) => {
      const { token } = (await app.inject({ method: 'POST', url: '/api/auth/tokens', payload: USERS.ann })).json().data;
      const payload = { chatbot_id: IDS.alpha, query: 'shoes' };
      for (const headers of [{ authorization: `Bearer ${KEYS.a}` }, { 'x-api-key': KEYS.a }, { authorization: `Bearer ${token}` }]) {
        const res = await app.inject({ method: 'POST', url: URL, headers, payload });
        t.equal(res.statusCode, 401);
        t.same(res.json(), { success: false, message: 'Unauthenticated.' });
        t.equal(lastErrorCode(logs), 'DASHBOARD_002');
        const both = await app.inject({ method: 'POST', url: URL, headers: { ...headers, cookie: cookieA }, payload });
        t.equal(both.statusCode, 401, 'a key next to a valid session is still refused');
      }
      const anonymous = await app.inject({ method: 'POST', url: URL, payload: {} });
      t.equal(anonymous.statusCode, 401, 'authentication is checked before validation');
    });

    t.test('a failing search answers 500 without internals, and logs the cause', async (t) => {
      await tdb.postgres.db.execute(sql`alter table chunks rename to chunks_away`);
      t.teardown(() => tdb.postgres.db.execute(sql`alter table chunks_away rename to chunks`));
      const res = await search({ chatbot_id: IDS.alpha, query: 'shoes' });
      t.equal(res.statusCode, 500);
      t.same(res.json(), { success: false, message: 'Search failed.' });
      const entry = logs.find((l) => l.code === 'DASHBOARD_011')!;
      t.ok(entry, 'logged with its code');
      t.match(JSON.stringify(entry.err), /chunks/, 'the log carries the database error');
    });
  });
}
