/**
 * The dashboard bench's account (api.ts): 50 chatbots, 2,000 data sources (1,600 top-level, 400
 * children under the first 100) and a detail of 200 chunks, written through the same tables and
 * credential repository the dashboard reads.
 */
import { benchLogger } from '../lib/report.js';

const CHATBOTS = 50;
const CONVERSATIONS_PER_BOT = 100;
const PARENTS = 1600;
const CHILDREN = 400;
const CHUNKS = 200;
const DAY = 86_400_000;

interface Seeded { key: string; detailId: string }

/** The account, through the same tables and credential repository the dashboard reads. */
export async function seed(dataDir: string, databaseUrl?: string): Promise<Seeded> {
  const { createPostgres, accounts, chatbots, dataSources, chunks, conversations } = await import('@chatlytics/postgres');
  const { createCredentialRepository } = await import('@chatlytics/dashboard');
  const { sql } = await import('drizzle-orm');
  const postgres = await createPostgres({ databaseUrl, dataDir, log: benchLogger('warn') });
  try {
    await postgres.migrate();
    const { db } = postgres;
    const now = Date.now();
    const [account] = await db.insert(accounts).values({ name: 'Bench shop', cmsProviders: ['shopify', 'woocommerce'] }).returning({ id: accounts.id });
    const { key } = await createCredentialRepository({ db }).createApiKey({ accountId: account.id, name: 'bench' });
    const bots = await db.insert(chatbots).values(Array.from({ length: CHATBOTS }, (_, i) => ({
      accountId: account.id, name: `Assistant ${String(i).padStart(2, '0')}`, status: i % 7 === 0 ? 'paused' : 'active',
      language: i % 3 === 0 ? 'de' : 'en', integratedAt: '2025-06-01',
      settings: { companyName: `Shop ${i}`, supportEmail: `help${i}@shop.test`, abTestEnabled: i % 5 === 0, extraTagName: i % 2 ? 'category' : null },
      updatedAt: new Date(now - i * 3_600_000),
    }))).returning({ id: chatbots.id });
    // Batches keep each INSERT's parameter count far below PostgreSQL's 65,535 limit.
    const batches = async <T>(rows: T[], size: number, insert: (part: T[]) => Promise<unknown>) => {
      for (let i = 0; i < rows.length; i += size) await insert(rows.slice(i, i + size));
    };
    await batches(bots.flatMap((bot, b) => Array.from({ length: CONVERSATIONS_PER_BOT }, (_, c) => ({
      chatbotId: bot.id, startedAt: new Date(now - ((b * CONVERSATIONS_PER_BOT + c) % 60) * DAY),
    }))), 1000, (part) => db.insert(conversations).values(part));
    const dataSource = (i: number, parentId: string | null) => {
      const bot = bots[i % CHATBOTS];
      return {
        chatbotId: bot.id, accountId: account.id, parentId, name: `${parentId ? 'Page' : 'Source'} ${i}`,
        type: ['file', 'url', 'text', 'crawl'][i % 4], subtype: ['csv', null, null, 'sitemap'][i % 4], status: ['completed', 'processing', 'failed'][i % 3],
        source: `https://shop.test/${i}`, documentCount: i % 50, productCount: i % 4 === 0 ? i % 30 : null, autoUpdate: i % 2 === 0,
        rawPath: null, simpleFetch: i % 3 === 0, settings: { depth: i % 4 },
        extraTags: [{ name: 'category', value: `cat-${i % 17}` }, { name: 'category', value: `brand-${i % 5}` }],
        createdAt: new Date(now - i * 60_000), updatedAt: new Date(now - i * 3_600_000),
      };
    };
    const parents: { id: string }[] = [];
    await batches(Array.from({ length: PARENTS }, (_, i) => dataSource(i, null)), 500, async (part) => {
      parents.push(...await db.insert(dataSources).values(part).returning({ id: dataSources.id }));
    });
    // Children under the first parents, a few each: childrenCount is non-zero for many rows.
    await batches(Array.from({ length: CHILDREN }, (_, i) => dataSource(PARENTS + i, parents[i % 100].id)), 500,
      (part) => db.insert(dataSources).values(part));
    const detailId = parents[0].id;
    await db.insert(chunks).values(Array.from({ length: CHUNKS }, (_, i) => ({
      dataSourceId: detailId, index: i, tokenCount: 120, embedding: i % 2 ? [0.1, 0.2, 0.3] : null,
      content: `Chunk ${i}: ${'Trail running shoes with a grippy sole and a breathable mesh upper. '.repeat(8)}`,
    })));
    // Planner statistics, as a database in service has them (autovacuum would, minutes later).
    await db.execute(sql`analyze`);
    return { key, detailId };
  } finally {
    await postgres.close();
  }
}
