import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { buildTestApp, lastErrorCode } from './helper.js';
import { IDS, KEYS, LONG_RAW } from './fixture.js';

const asA = { authorization: `Bearer ${KEYS.a}` };
const asB = { 'x-api-key': KEYS.b };

for (const variant of databaseVariants()) {
  t.test(`dashboard read endpoints (${variant.name})`, { skip: variant.skip }, async (t) => {
    const { app, logs } = await buildTestApp(t, variant);
    const get = (url: string, headers: Record<string, string> = asA) => app.inject({ method: 'GET', url, headers });

    t.test('GET /api/dashboard/chatbots: every field, ordered by name, scoped to the account', async (t) => {
      const res = await get('/api/dashboard/chatbots');
      t.equal(res.statusCode, 200);
      t.same(res.json(), {
        success: true,
        data: {
          chatbots: [
            { id: IDS.alpha, name: 'Alpha', status: 'active', conversations: 2, visitors: 0, conversionRate: 0, language: 'de',
              integratedAt: '2026-01-31', lastActive: '2 hours ago', displayCurrency: 'EUR' },
            { id: IDS.beta, name: 'Beta', status: 'paused', conversations: 1, visitors: 0, conversionRate: 0, language: 'en',
              integratedAt: null, lastActive: 'just now', displayCurrency: 'EUR' },
          ],
        },
      });
      const b = await get('/api/dashboard/chatbots', asB);
      t.same(b.json().data.chatbots.map((c: { id: string }) => c.id), [IDS.gamma], 'account B sees only its own chatbot');
      t.equal(b.json().data.chatbots[0].conversations, 0);
    });

    t.test('GET /api/dashboard/chatbots/:id: detail fields, 404 for other accounts and bad ids', async (t) => {
      const res = await get(`/api/dashboard/chatbots/${IDS.alpha}`);
      t.equal(res.statusCode, 200);
      t.same(res.json(), {
        success: true,
        data: {
          chatbot: {
            id: IDS.alpha, name: 'Alpha', status: 'active', conversations: 2, visitors: 0, conversionRate: 0, language: 'de',
            integratedAt: '2026-01-31', lastActive: '2 hours ago', displayCurrency: 'EUR', companyName: 'Shop A GmbH', supportEmail: 'help@shop-a.test',
            allowedOrigins: [], maxPurchaseEur: 100_000, requireSignedPurchases: false, holdoutPercent: 0, hasSigningSecret: false,
            revenueSource: 'tracker', attributionWindowDays: 7, hasOrdersKey: false, hasShopifyWebhookSecret: false, hasWoocommerceWebhookSecret: false, retentionDays: 395,
          },
        },
      });
      const beta = (await get(`/api/dashboard/chatbots/${IDS.beta}`)).json().data.chatbot;
      t.equal(beta.companyName, null, 'no settings: null, not missing');
      t.equal(beta.supportEmail, null);
      for (const [url, headers, why] of [
        [`/api/dashboard/chatbots/${IDS.gamma}`, asA, "another account's chatbot"],
        [`/api/dashboard/chatbots/${IDS.alpha}`, asB, "another account's chatbot (B asking for A's)"],
        ['/api/dashboard/chatbots/0a000000-0000-4000-8000-00000000ffff', asA, 'unknown id'],
        ['/api/dashboard/chatbots/not-a-uuid', asA, 'malformed id'],
      ] as const) {
        const r = await get(url, headers);
        t.equal(r.statusCode, 404, why);
        t.same(r.json(), { success: false, message: 'Not found.' }, why);
      }
      t.equal(lastErrorCode(logs), 'DASHBOARD_004');
      const gamma = await get(`/api/dashboard/chatbots/${IDS.gamma}`, asB);
      t.equal(gamma.statusCode, 200);
      t.equal(gamma.json().data.chatbot.integratedAt, '2025-12-01');
    });

    t.test('GET /api/dashboard/data-sources: parents newest first, chatbots, cmsProviders, extraTagConfig', async (t) => {
      const res = await get('/api/dashboard/data-sources');
      t.equal(res.statusCode, 200);
      const { data } = res.json();
      t.same(data.dataSources.map((d: { name: string }) => d.name), ['FAQ', 'Website', 'Catalog', 'Escaping raw path'],
        'children are not listed; ordered by creation date descending');
      t.same(data.dataSources[2], {
        id: IDS.catalog, name: 'Catalog', type: 'file', subtype: 'csv', status: 'completed', source: 'catalog.csv',
        documentCount: 4, productCount: 3, childrenCount: 0, autoUpdate: false, chatbotId: IDS.alpha, chatbotName: 'Alpha',
        createdAt: '2026-02-10 08:05', updatedAt: '5 minutes ago',
      });
      t.same(data.dataSources[1], {
        id: IDS.site, name: 'Website', type: 'crawl', subtype: 'sitemap', status: 'processing', source: 'https://shop-a.test/sitemap.xml',
        documentCount: null, productCount: null, childrenCount: 2, autoUpdate: true, chatbotId: IDS.alpha, chatbotName: 'Alpha',
        createdAt: '2026-02-20 09:00', updatedAt: '3 days ago',
      });
      t.same(data.dataSources[0], {
        id: IDS.faq, name: 'FAQ', type: 'text', subtype: null, status: 'completed', source: null,
        documentCount: null, productCount: null, childrenCount: 0, autoUpdate: null, chatbotId: IDS.beta, chatbotName: 'Beta',
        createdAt: '2026-02-25 10:00', updatedAt: '1 hour ago',
      });
      t.equal(data.dataSources[3].updatedAt, '1 year ago');
      t.same(data.chatbots, [{ id: IDS.alpha, name: 'Alpha' }, { id: IDS.beta, name: 'Beta' }]);
      t.same(data.cmsProviders, ['shopify', 'woocommerce']);
      t.same(data.extraTagConfig, {
        // Children's tags count too; code-unit order puts upper case first.
        [IDS.alpha]: { name: 'category', values: ['Apparel', 'Zubehör', 'shoes'] },
        [IDS.beta]: { name: 'static_category', values: [] },
      });

      const b = (await get('/api/dashboard/data-sources', asB)).json().data;
      t.same(b.dataSources.map((d: { id: string }) => d.id), [IDS.otherCatalog]);
      t.same(b.chatbots, [{ id: IDS.gamma, name: 'Gamma' }]);
      t.same(b.cmsProviders, [], 'no CMS connected: empty array');
      t.same(b.extraTagConfig, { [IDS.gamma]: { name: 'static_category', values: ['secret-b'] } });
    });

    t.test('GET /api/dashboard/data-sources/:id: detail, chunks by index, raw content, children', async (t) => {
      const res = await get(`/api/dashboard/data-sources/${IDS.catalog}`);
      t.equal(res.statusCode, 200);
      t.same(res.json(), {
        success: true,
        data: {
          dataSource: {
            id: IDS.catalog, name: 'Catalog', type: 'file', subtype: 'csv', status: 'completed', source: 'catalog.csv',
            documentCount: 4, productCount: 3, childrenCount: 0, autoUpdate: false, chatbotId: IDS.alpha, chatbotName: 'Alpha',
            rawPath: 'raw/catalog.csv', simpleFetch: null,
            extraTags: [{ name: 'category', value: 'shoes' }, { name: 'category', value: 'Apparel' }],
            createdAt: '2026-02-10 08:05:07', updatedAt: '2026-03-01 11:55:00', settings: { delimiter: ',' },
          },
          chunks: [
            { id: IDS.chunk(1), index: 0, content: 'Red running shoes with extra cushioning', tokenCount: 6, hasEmbedding: true },
            { id: IDS.chunk(2), index: 1, content: 'Trail running shoes for muddy paths; running shoes, shoes, shoes', tokenCount: null, hasEmbedding: false },
            { id: IDS.chunk(3), index: 2, content: 'Blue cotton socks, pack of three', tokenCount: 6, hasEmbedding: false },
          ],
          rawContent: 'sku,name\n1,Red shoes\n',
          children: [],
        },
      });
    });

    t.test('detail of a crawl: children newest first, raw content truncated at 51200 characters', async (t) => {
      const { data } = (await get(`/api/dashboard/data-sources/${IDS.site}`)).json();
      t.same(data.children, [
        { id: IDS.sitePage2, name: 'Returns page', source: 'https://shop-a.test/returns', status: 'failed', documentCount: null, createdAt: '2026-02-20 09:02' },
        { id: IDS.sitePage1, name: 'Shipping page', source: 'https://shop-a.test/shipping', status: 'completed', documentCount: 1, createdAt: '2026-02-20 09:01' },
      ]);
      t.equal(data.dataSource.simpleFetch, true);
      t.equal(data.dataSource.settings, null);
      t.equal(data.dataSource.childrenCount, 2);
      t.equal(data.rawContent, `${LONG_RAW.slice(0, 51_201)}\n[truncated: showing 51200 of 51210 characters]`,
        'cut after the 51,200th character, keeping the emoji whole');
      const child = (await get(`/api/dashboard/data-sources/${IDS.sitePage1}`)).json().data;
      t.equal(child.dataSource.name, 'Shipping page', 'a child is reachable by id too');
      t.equal(child.rawContent, null, 'no raw path: null');
      t.same(child.chunks.map((c: { id: string }) => c.id), [IDS.chunk(5)]);
    });

    t.test('raw content outside the storage root is refused: null and a warning', async (t) => {
      const res = await get(`/api/dashboard/data-sources/${IDS.broken}`);
      t.equal(res.statusCode, 200);
      t.equal(res.json().data.rawContent, null);
      t.equal(res.json().data.dataSource.rawPath, '../../etc/passwd');
      t.ok(logs.some((l) => l.msg === 'raw content could not be read' && l.dataSourceId === IDS.broken && l.level === 40));
    });

    t.test('data source detail of another account, unknown or malformed: 404', async (t) => {
      for (const [url, headers] of [
        [`/api/dashboard/data-sources/${IDS.otherCatalog}`, asA],
        [`/api/dashboard/data-sources/${IDS.catalog}`, asB],
        [`/api/dashboard/data-sources/${IDS.sitePage1}`, asB],
        ['/api/dashboard/data-sources/123', asA],
      ] as const) {
        const r = await get(url, headers);
        t.equal(r.statusCode, 404, url);
        t.same(r.json(), { success: false, message: 'Not found.' });
      }
      t.equal((await get(`/api/dashboard/data-sources/${IDS.otherCatalog}`, asB)).statusCode, 200);
    });

    t.test('every read endpoint: 401 without or with a bad credential, never from the query string', async (t) => {
      const urls = ['/api/dashboard/chatbots', `/api/dashboard/chatbots/${IDS.alpha}`, '/api/dashboard/data-sources',
        `/api/dashboard/data-sources/${IDS.catalog}`, '/api/dashboard/chatbots/not-a-uuid'];
      const bad: Record<string, string>[] = [{}, { authorization: 'Bearer ck_unknown' }, { 'x-api-key': 'ct_unknown' },
        { authorization: `Basic ${Buffer.from(`x:${KEYS.a}`).toString('base64')}` }, { 'x-api-key': 'not-a-credential' },
        { cookie: 'chatlytics_session=forged' }];
      for (const url of urls) {
        for (const headers of bad) {
          const r = await get(url, headers);
          t.equal(r.statusCode, 401, `${url} ${JSON.stringify(headers)}`);
          t.same(r.json(), { success: false, message: 'Unauthenticated.' });
        }
        t.equal((await get(`${url}?api_key=${KEYS.a}&token=${KEYS.a}`, {})).statusCode, 401, 'query string ignored');
      }
      t.equal(lastErrorCode(logs), 'DASHBOARD_001');
    });

    t.test('unknown paths under /api/dashboard and /app answer the JSON 404', async (t) => {
      for (const url of ['/api/dashboard/nope', '/app/nope']) {
        const r = await get(url);
        t.equal(r.statusCode, 404);
        t.same(r.json(), { success: false, message: 'Not found.' });
      }
      t.equal(lastErrorCode(logs), 'DASHBOARD_005');
    });
  });
}
