import type { Fixture } from '../src/fixtures/schema.js';

/** The pinned "now" of the HTTP tests: every relative time below is measured from it. */
export const NOW = new Date('2026-03-01T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export const IDS = {
  accountA: '0a000000-0000-4000-8000-000000000001',
  accountB: '0b000000-0000-4000-8000-000000000001',
  alpha: '0a000000-0000-4000-8000-0000000000b1',
  beta: '0a000000-0000-4000-8000-0000000000b2',
  gamma: '0b000000-0000-4000-8000-0000000000b1',
  catalog: '0a000000-0000-4000-8000-0000000000d1',
  site: '0a000000-0000-4000-8000-0000000000d2',
  sitePage1: '0a000000-0000-4000-8000-0000000000d3',
  sitePage2: '0a000000-0000-4000-8000-0000000000d4',
  faq: '0a000000-0000-4000-8000-0000000000d5',
  broken: '0a000000-0000-4000-8000-0000000000d6',
  otherCatalog: '0b000000-0000-4000-8000-0000000000d1',
  convo1: '0a000000-0000-4000-8000-0000000000c1',
  convo2: '0a000000-0000-4000-8000-0000000000c2',
  convo3: '0a000000-0000-4000-8000-0000000000c3',
  chunk: (n: number) => `0a000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`,
  otherChunk: '0b000000-0000-4000-8000-000000000101',
} as const;

export const USERS = {
  ann: { email: 'Ann@Shop-A.test', password: 'ann-password' },
  bob: { email: 'bob@shop-b.test', password: 'bob-password' },
};
export const KEYS = {
  a: 'ck_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  b: 'ck_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB',
};

/** 51,210 characters where the cut at 51,200 falls right after an astral character (two UTF-16 units). */
export const LONG_RAW = 'a'.repeat(51_199) + '😀' + 'b'.repeat(10);

export function testFixture(): Fixture {
  return {
    accounts: [
      {
        id: IDS.accountA, name: 'Shop A', cmsProviders: ['shopify', 'woocommerce'],
        users: [{ ...USERS.ann, name: 'Ann' }],
        apiKeys: [{ name: 'ci', key: KEYS.a }],
        chatbots: [
          {
            id: IDS.alpha, name: 'Alpha', status: 'active', language: 'de', integratedAt: '2026-01-31',
            createdAt: ago(90 * DAY), updatedAt: ago(2 * HOUR),
            settings: { companyName: 'Shop A GmbH', supportEmail: 'help@shop-a.test', abTestEnabled: false, extraTagName: 'category' },
            dataSources: [
              {
                id: IDS.catalog, name: 'Catalog', type: 'file', subtype: 'csv', status: 'completed', source: 'catalog.csv',
                documentCount: 4, productCount: 3, autoUpdate: false, rawPath: 'raw/catalog.csv', rawContent: 'sku,name\n1,Red shoes\n',
                simpleFetch: null, extraTags: [{ name: 'category', value: 'shoes' }, { name: 'category', value: 'Apparel' }],
                settings: { delimiter: ',' }, createdAt: '2026-02-10T08:05:07.000Z', updatedAt: ago(5 * MIN),
                chunks: [
                  { id: IDS.chunk(3), index: 2, content: 'Blue cotton socks, pack of three', tokenCount: 6, embedding: null },
                  { id: IDS.chunk(1), index: 0, content: 'Red running shoes with extra cushioning', tokenCount: 6, embedding: [0.1, 0.2, 0.3] },
                  { id: IDS.chunk(2), index: 1, content: 'Trail running shoes for muddy paths; running shoes, shoes, shoes', tokenCount: null },
                ],
              },
              {
                id: IDS.site, name: 'Website', type: 'crawl', subtype: 'sitemap', status: 'processing', source: 'https://shop-a.test/sitemap.xml',
                documentCount: null, productCount: null, autoUpdate: true, rawPath: 'raw/site.txt', rawContent: LONG_RAW,
                simpleFetch: true, extraTags: [{ name: 'category', value: 'shoes' }], settings: null,
                createdAt: '2026-02-20T09:00:00.000Z', updatedAt: ago(3 * DAY),
                chunks: [{ id: IDS.chunk(4), index: 0, content: 'Shipping takes three days. Returns are free.', tokenCount: 8 }],
                children: [
                  {
                    id: IDS.sitePage1, name: 'Shipping page', type: 'url', status: 'completed', source: 'https://shop-a.test/shipping',
                    documentCount: 1, createdAt: '2026-02-20T09:01:00.000Z', updatedAt: '2026-02-20T09:01:00.000Z',
                    extraTags: [{ name: 'category', value: 'Zubehör' }],
                    chunks: [{ id: IDS.chunk(5), index: 0, content: 'We ship running shoes worldwide', tokenCount: 5 }],
                  },
                  {
                    id: IDS.sitePage2, name: 'Returns page', type: 'url', status: 'failed', source: 'https://shop-a.test/returns',
                    documentCount: null, createdAt: '2026-02-20T09:02:30.000Z', updatedAt: '2026-02-20T09:02:30.000Z',
                  },
                ],
              },
              {
                id: IDS.broken, name: 'Escaping raw path', type: 'text', status: 'failed', rawPath: '../../etc/passwd',
                createdAt: '2026-01-05T00:00:00.000Z', updatedAt: ago(400 * DAY),
              },
            ],
            conversations: [
              { id: IDS.convo1, startedAt: ago(DAY), messages: [
                { role: 'user', content: 'Do you have red shoes?', createdAt: ago(DAY) },
                { role: 'assistant', content: 'Yes!', createdAt: ago(DAY - MIN) },
              ], analysis: { intents: ['buy shoes'], mood: 'happy', outcome: 'success', converted: true } },
              { id: IDS.convo2, startedAt: ago(2 * DAY), messages: [] },
            ],
          },
          {
            id: IDS.beta, name: 'Beta', status: 'paused', createdAt: ago(10 * DAY), updatedAt: ago(30 * 1000),
            dataSources: [
              {
                id: IDS.faq, name: 'FAQ', type: 'text', status: 'completed', createdAt: '2026-02-25T10:00:00.000Z', updatedAt: ago(HOUR),
                chunks: [{ id: IDS.chunk(6), index: 0, content: 'Running shoes are our bestseller', tokenCount: 5 }],
              },
            ],
            conversations: [{ id: IDS.convo3, startedAt: ago(DAY), messages: [{ role: 'user', content: 'hi', createdAt: ago(DAY) }] }],
          },
        ],
      },
      {
        id: IDS.accountB, name: 'Shop B',
        users: [{ ...USERS.bob, name: 'Bob' }],
        apiKeys: [{ name: 'b', key: KEYS.b }],
        chatbots: [
          {
            id: IDS.gamma, name: 'Gamma', status: 'active', integratedAt: '2025-12-01', createdAt: ago(20 * DAY), updatedAt: ago(DAY),
            settings: { companyName: null },
            dataSources: [
              {
                id: IDS.otherCatalog, name: 'B catalog', type: 'file', status: 'completed', createdAt: '2026-02-28T00:00:00.000Z',
                updatedAt: ago(DAY), extraTags: [{ name: 'static_category', value: 'secret-b' }],
                chunks: [{ id: IDS.otherChunk, index: 0, content: 'Running shoes running shoes running shoes of shop B', tokenCount: 9 }],
              },
            ],
          },
        ],
      },
    ],
  };
}
