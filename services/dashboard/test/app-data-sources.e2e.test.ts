/**
 * The data-source pages (/app/data-sources…) through HTTP on the real dashboardApp, on PGlite and
 * the PostgreSQL server: what each page shows equals the JSON API's answer (list and its chatbot
 * and tag filters, pages of 50, detail with chunks, raw preview and children, the search test
 * form against POST /app/data-sources/search-test), user text escaped, account scoping (404
 * page), session only, CSP, form errors with the values kept, and the origin rule of the form.
 */
import path from 'node:path';
import t from 'tap';
import Fastify from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng } from '@chatlytics/testkit';
import dashboardApp from '../src/app.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { createLocalRawContentStorage } from '../src/data-sources/raw-content-storage.js';
import { DATA_SOURCES_PER_PAGE } from '../src/data-sources/page-routes.js';
import { openClickHouse, silentLog } from './stats-fixtures.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const rng = createRng(2019);
const EVIL = '<script>alert(1)</script>"\'&';
const ANN = { email: 'ann@ds-a.test', password: 'ann-password' };
const KEY_A = `ck_${'d'.repeat(30)}`;
const IDS = { accountA: rng.uuid(), accountB: rng.uuid(), bot: rng.uuid(), bulk: rng.uuid(), other: rng.uuid(), foreignDs: rng.uuid() };
const iso = (ms: number) => new Date(ms).toISOString();
const tags = (...values: string[]) => values.map((value) => ({ name: 'static_category', value }));
const chunk = (index: number, content: string) => ({ id: rng.uuid(), index, content, tokenCount: index === 0 ? null : 12, embedding: null });

const catalog = {
  id: rng.uuid(), name: `Catalog ${EVIL}`, type: 'file', subtype: 'csv', status: 'completed', source: 'catalog.csv', documentCount: 2,
  productCount: 2, autoUpdate: true, rawPath: 'raw/catalog.csv', rawContent: `name;price\nBoots ${EVIL};80\n`, extraTags: tags('catalog', EVIL),
  createdAt: iso(NOW - 5 * 86_400_000), updatedAt: iso(NOW - 86_400_000),
  chunks: [chunk(1, 'Winter boots are waterproof.'), chunk(0, `Return policy: 30 days ${EVIL}`)],
  children: [
    { id: rng.uuid(), name: `Page ${EVIL}`, type: 'url', status: 'completed', source: 'https://shop.test/boots', extraTags: tags('boots-only'),
      createdAt: iso(NOW - 4 * 86_400_000), chunks: [chunk(0, 'Boots ship within two days, shipping is free.')] },
    { id: rng.uuid(), name: 'Page two', type: 'url', status: 'failed', source: null, createdAt: iso(NOW - 3 * 86_400_000) },
  ],
};
const faq = {
  id: rng.uuid(), name: 'FAQ', type: 'text', status: 'processing', extraTags: tags('help'), createdAt: iso(NOW - 2 * 86_400_000),
  chunks: [chunk(0, 'Shipping to Austria takes three days.'), chunk(1, 'Shipping costs 5 EUR below 50 EUR.')],
};
// Enough parents for more than one page; created a minute apart so the list order is fixed.
const bulk = Array.from({ length: DATA_SOURCES_PER_PAGE + 7 }, (_, i) => ({
  id: rng.uuid(), name: `Bulk ${i}`, type: 'text', status: 'completed', createdAt: iso(NOW - 10 * 86_400_000 + i * 60_000),
}));
const fixture: Fixture = {
  accounts: [
    { id: IDS.accountA, name: 'Shop A', users: [{ ...ANN, name: 'Ann' }], apiKeys: [{ name: 'ci', key: KEY_A }], chatbots: [
      { id: IDS.bot, name: `Bot ${EVIL}`, dataSources: [catalog, faq] },
      { id: IDS.bulk, name: 'Bulk bot', dataSources: bulk },
    ] },
    { id: IDS.accountB, name: 'Shop B', chatbots: [{ id: IDS.other, name: 'Other bot', dataSources: [
      { id: IDS.foreignDs, name: 'Foreign', type: 'text', status: 'completed', extraTags: tags('catalog'), chunks: [chunk(0, 'Shipping of the other shop.')] },
    ] }] },
  ],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());

/** Element text back from the page's HTML escapes (the views escape exactly these five). */
const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const all = (body: string, re: RegExp) => [...body.matchAll(re)].map((m) => unescape(m[1]!));
const rowIds = (body: string) => all(body, /<tr data-source-id="([^"]+)"/g);
const LIVE_SCRIPT = /<script>alert/;

for (const variant of databaseVariants()) {
  t.test(`data-source pages (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    const storage = createLocalRawContentStorage(path.join(tdb.dataDir, 'storage'));
    await importFixture(tdb.postgres.db, fixture, { storage, passwordCost: TEST_SCRYPT_COST });
    const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
    const config = loadConfig({ DATA_DIR: tdb.dataDir, SESSION_SECRET: 'x'.repeat(40) });
    await app.register(dashboardApp, { config, postgres: tdb.postgres, storage, clickhouse: ch.embedded, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW) });
    await app.ready();
    t.teardown(() => app.close());
    const host = '127.0.0.1:3000';
    const form = { host, origin: `http://${host}`, 'content-type': 'application/x-www-form-urlencoded' };
    const login = await app.inject({ method: 'POST', url: '/login', headers: form, payload: new URLSearchParams(ANN).toString() });
    const cookie = `chatlytics_session=${login.cookies.find((c) => c.name === 'chatlytics_session')?.value}`;
    const page = (url: string) => app.inject({ method: 'GET', url, headers: { host, cookie, accept: 'text/html' } });
    const api = async (url: string) => (await app.inject({ method: 'GET', url: `/api/dashboard${url}`, headers: { authorization: `Bearer ${KEY_A}` } })).json().data;
    const list = await api('/data-sources');

    t.test('guests and keys go to /login; CSP; linked from the header', async (t) => {
      for (const url of ['/app/data-sources', `/app/data-sources/${catalog.id}`, '/app/data-sources/search']) {
        t.equal((await app.inject({ method: 'GET', url, headers: { accept: 'text/html' } })).headers.location, '/login', url);
        t.equal((await app.inject({ method: 'GET', url, headers: { accept: 'text/html', authorization: `Bearer ${KEY_A}` } })).headers.location, '/login', `${url}: a key is not a session`);
        const res = await page(url);
        t.equal(res.statusCode, 200, url);
        t.notMatch(String(res.headers['content-security-policy']), /unsafe-inline/, `${url}: CSP without inline scripts`);
        t.match(res.body, /<nav class="account"[^>]*>.*<a href="\/app\/data-sources">Data sources<\/a>/, `${url}: in the header nav`);
      }
      t.match((await page('/app')).body, /href="\/app\/data-sources"/, 'the chatbot list links to it too (header)');
    });

    t.test('list: the JSON list, page by page, escaped', async (t) => {
      const p1 = await page('/app/data-sources');
      const p2 = await page('/app/data-sources?page=2');
      t.ok(list.dataSources.length > DATA_SOURCES_PER_PAGE, 'the fixture needs two pages');
      t.same([...rowIds(p1.body), ...rowIds(p2.body)], list.dataSources.map((d: { id: string }) => d.id), 'the rows of both pages are the JSON list, in its order');
      t.equal(rowIds(p1.body).length, DATA_SOURCES_PER_PAGE);
      t.match(p1.body, new RegExp(`data-stat="data-sources.total" data-value="${list.dataSources.length}"`));
      t.match(p1.body, /rel="next"/);
      t.same(rowIds((await page('/app/data-sources?page=999')).body), rowIds(p2.body), 'past the end: the last page');
      t.same(rowIds((await page('/app/data-sources?page=abc')).body), rowIds(p1.body), 'not a number: the first page');
      const shown = all(p1.body, /<th scope="row" class="wrap"><a href="[^"]+">([^<]*)<\/a>/g);
      t.same(shown, list.dataSources.slice(0, DATA_SOURCES_PER_PAGE).map((d: { name: string }) => d.name), 'names as in JSON (unescaped)');
      t.ok(shown.includes(`Catalog ${EVIL}`));
      t.notMatch(p1.body, LIVE_SCRIPT, `escaped: ${'list'}`);
      t.notOk(rowIds(p1.body).includes(IDS.foreignDs) || rowIds(p2.body).includes(IDS.foreignDs), "another account's data source is not listed");
    });

    t.test('filters: by chatbot and by tag (own or a child\'s), as the JSON API describes them', async (t) => {
      const byBot = await page(`/app/data-sources?chatbot_id=${IDS.bot}`);
      t.same(rowIds(byBot.body), list.dataSources.filter((d: { chatbotId: string }) => d.chatbotId === IDS.bot).map((d: { id: string }) => d.id));
      const tagSelect = /<select id="f-tag"[^>]*>([\s\S]*?)<\/select>/.exec(byBot.body)?.[1] ?? '';
      t.same(all(tagSelect, /<option value="([^"]+)"/g),
        list.extraTagConfig[IDS.bot].values, "the tag choices are the chatbot's extraTagConfig values");
      const tagsOf = async (id: string) => ((await api(`/data-sources/${id}`)).dataSource.extraTags ?? []).map((x: { value: string }) => x.value);
      let narrowed = 0;
      for (const value of list.extraTagConfig[IDS.bot].values as string[]) {
        const res = await page(`/app/data-sources?tag=${encodeURIComponent(value)}`);
        const expected: string[] = [];
        for (const d of list.dataSources as { id: string }[]) {
          const detail = await api(`/data-sources/${d.id}`);
          const childTags = await Promise.all(detail.children.map((c: { id: string }) => tagsOf(c.id)));
          if ([...(detail.dataSource.extraTags ?? []).map((x: { value: string }) => x.value), ...childTags.flat()].includes(value)) expected.push(d.id);
        }
        t.same(rowIds(res.body), expected, `tag ${JSON.stringify(value)}`);
        t.ok(expected.length > 0, `tag ${JSON.stringify(value)} finds its data source`);
        if (expected.length < list.dataSources.length) narrowed++;
        t.notMatch(res.body, LIVE_SCRIPT, `escaped: ${`tag ${value}`}`);
      }
      t.ok(narrowed > 0, 'a tag narrows the list');
      t.same(rowIds((await page(`/app/data-sources?tag=boots-only`)).body), [catalog.id], "a child's tag finds its parent");
      t.same(rowIds((await page(`/app/data-sources?chatbot_id=${IDS.bulk}&tag=catalog`)).body), [], 'both filters apply together');
      t.match((await page('/app/data-sources?tag=nothing-has-this')).body, /No data source matches the filter\./);
      for (const id of [IDS.other, 'not-a-uuid', rng.uuid()]) {
        const res = await page(`/app/data-sources?chatbot_id=${id}`);
        t.equal(res.statusCode, 404, `chatbot ${id}: the 404 page`);
        t.match(res.body, /Not found\./);
      }
    });

    t.test('detail: facts, chunks, raw preview and children equal the JSON detail', async (t) => {
      for (const id of [catalog.id, faq.id, catalog.children[0]!.id, catalog.children[1]!.id, bulk[0]!.id]) {
        const json = await api(`/data-sources/${id}`);
        const res = await page(`/app/data-sources/${id}`);
        t.equal(res.statusCode, 200, id);
        t.match(unescape(res.body), `<h1>${json.dataSource.name}</h1>`, `${id}: its name`);
        t.same(all(res.body, /<li data-chunk-id="([^"]+)"/g), json.chunks.map((c: { id: string }) => c.id), `${id}: chunks in the JSON order`);
        t.same(all(res.body, /<p class="text">([\s\S]*?)<\/p>/g), json.chunks.map((c: { content: string }) => c.content), `${id}: chunk text`);
        t.same(all(res.body, /<pre class="raw"[^>]*>([\s\S]*?)<\/pre>/g), json.rawContent === null ? [] : [json.rawContent], `${id}: raw preview`);
        t.same(rowIds(res.body), json.children.map((c: { id: string }) => c.id), `${id}: children`);
        for (const tag of json.dataSource.extraTags ?? []) t.match(unescape(res.body), `</span> ${tag.value}</li>`, `${id}: tag ${tag.value}`);
        t.notMatch(res.body, LIVE_SCRIPT, `escaped: ${id}`);
      }
      t.ok((await api(`/data-sources/${catalog.id}`)).rawContent.includes('<script>'), 'the raw content under test holds markup');
      t.match((await page(`/app/data-sources/${catalog.children[0]!.id}`)).body, `href="/app/data-sources/${catalog.id}">Parent data source`, 'a child links its parent');
      t.match((await page(`/app/data-sources/${bulk[0]!.id}`)).body, new RegExp(`<select id="switch-chatbot"[^>]*>\\s*<option value="${IDS.bot}">[^<]*</option><option value="${IDS.bulk}" selected>`), "the switcher shows the data source's chatbot");
      for (const id of [IDS.foreignDs, rng.uuid(), 'not-a-uuid']) {
        const res = await page(`/app/data-sources/${id}`);
        t.equal(res.statusCode, 404, `${id}: the 404 page`);
        t.notMatch(res.body, /Foreign|Shipping of the other shop/);
      }
    });

    t.test('search test: the form shows what POST /app/data-sources/search-test answers', async (t) => {
      const run = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
        app.inject({ method: 'POST', url: '/app/data-sources/search', headers: { ...form, cookie, accept: 'text/html', ...headers }, payload: new URLSearchParams(fields).toString() });
      const empty = await page(`/app/data-sources/search?chatbot_id=${IDS.bot}`);
      t.match(empty.body, new RegExp(`<option value="${IDS.bot}" selected>`), 'the chatbot from the link is chosen');
      for (const [query, count] of [['shipping', '10'], ['shipping', '1'], ['return policy', ''], ['no-such-word-anywhere', '5']] as const) {
        const res = await run({ chatbot_id: IDS.bot, query, document_count: count });
        const json = (await app.inject({
          method: 'POST', url: '/app/data-sources/search-test', headers: { host, origin: `http://${host}`, cookie },
          payload: { chatbot_id: IDS.bot, query, ...(count ? { document_count: Number(count) } : {}) },
        })).json();
        t.equal(res.statusCode, 200, query);
        t.same(all(res.body, /<li data-position="(\d+)"/g).map(Number), json.docs.map((d: { search_position: number }) => d.search_position), `${query}/${count}: positions`);
        t.same(all(res.body, /<span class="name">([\s\S]*?)<\/span>/g), json.docs.map((d: { name: string }) => d.name), `${query}/${count}: names`);
        t.same(all(res.body, /data-score="([^"]+)"/g).map(Number), json.docs.map((d: { score: number }) => d.score), `${query}/${count}: scores`);
        t.same(all(res.body, /<p class="text">([\s\S]*?)<\/p>/g), json.docs.map((d: { content: string }) => d.content), `${query}/${count}: chunk text`);
        t.match(unescape(res.body), `>${query}</textarea>`, 'the question is kept');
        t.notMatch(res.body, LIVE_SCRIPT, `escaped: ${query}`);
        if (query === 'shipping' && count === '10') {
          t.ok(json.docs.length >= 3, 'shipping finds several chunks');
          t.notMatch(res.body, /other shop/, "another account's chunks are not searched");
        }
        if (count === '1') t.equal(json.docs.length, 1);
      }
      const bad = await run({ chatbot_id: IDS.bot, query: '', document_count: '0' });
      t.equal(bad.statusCode, 422, 'empty question and a count of 0');
      t.match(bad.body, /id="query-error"[^>]*>The query field is required\./);
      t.match(bad.body, /id="document_count-error"[^>]*>The document count field must be at least 1\./);
      t.match(bad.body, /name="document_count"[^>]*value="0" aria-invalid="true"/, 'the value kept and marked');
      const long = await run({ chatbot_id: IDS.bot, query: 'x'.repeat(5001) });
      t.equal(long.statusCode, 422, 'a question over 5,000 characters');
      t.equal((await run({ chatbot_id: IDS.other, query: 'shipping' })).statusCode, 404, "another account's chatbot: the 404 page");
      t.equal((await run({ chatbot_id: 'nope', query: 'shipping' })).statusCode, 422, 'not a UUID: the form error');
      const cross = await run({ chatbot_id: IDS.bot, query: 'shipping' }, { origin: 'http://evil.test' });
      t.equal(cross.statusCode, 403, 'from another origin: refused');
      t.match(cross.body, /Forbidden/);
      const guest = await app.inject({ method: 'POST', url: '/app/data-sources/search', headers: { ...form, accept: 'text/html' }, payload: 'query=x' });
      t.equal(guest.statusCode, 401, 'a guest: the 401 page (the app\'s rule for a guest\'s form post)');
    });
  });
}
