import t from 'tap';
import { and, eq, sql } from 'drizzle-orm';
import { pino } from 'pino';
import fs from 'node:fs';
import path from 'node:path';
import { createPostgres, MIGRATIONS_FOLDER } from '../src/postgres.js';
import { databaseVariants } from '../src/testing.js';
import {
  accounts, users, chatbots, dataSources, chunks, conversations, messages, conversationAnalyses,
  apiKeys, authTokens, sessions, jobs as emailJobs, passwordResetTokens,
} from '../src/schema/index.js';
import type { Database } from '../src/types.js';

const ACCOUNT = '00000000-0000-4000-8000-000000000001';
const OTHER_ACCOUNT = '00000000-0000-4000-8000-000000000002';
const BOT = '00000000-0000-4000-8000-0000000000b1';
const DS = '00000000-0000-4000-8000-0000000000d1';
const CHILD_DS = '00000000-0000-4000-8000-0000000000d2';
const CONVO = '00000000-0000-4000-8000-0000000000c1';

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

async function seed(db: Database) {
  await db.insert(accounts).values([{ id: ACCOUNT, name: 'Shop A', cmsProviders: ['shopify'] }, { id: OTHER_ACCOUNT, name: 'Shop B' }]);
  const [user] = await db.insert(users).values({ accountId: ACCOUNT, email: 'ann@shop.test', name: 'Ann', passwordHash: 'x' }).returning();
  await db.insert(apiKeys).values({ accountId: ACCOUNT, name: 'ci', keyHash: 'a'.repeat(64), prefix: 'ck_abcd' });
  await db.insert(authTokens).values({ userId: user.id, tokenHash: 'b'.repeat(64), expiresAt: new Date(Date.now() + 86_400_000) });
  await db.insert(sessions).values({ id: 'c'.repeat(64), userId: user.id, expiresAt: new Date(Date.now() + 60_000) });
  await db.insert(chatbots).values({ id: BOT, accountId: ACCOUNT, name: 'Bot', integratedAt: '2026-01-31', settings: { companyName: 'A', abTestEnabled: true } });
  await db.insert(dataSources).values({ id: DS, chatbotId: BOT, accountId: ACCOUNT, name: 'Catalog', type: 'file', status: 'completed', extraTags: [{ name: 'static_category', value: 'shoes' }] });
  await db.insert(dataSources).values({ id: CHILD_DS, chatbotId: BOT, accountId: ACCOUNT, parentId: DS, name: 'Page', type: 'url', status: 'completed' });
  await db.insert(chunks).values([
    { dataSourceId: DS, index: 0, content: 'Red running shoes with extra cushioning for long distances', embedding: [0.1, 0.2] },
    { dataSourceId: DS, index: 1, content: 'Our return policy allows returns within thirty days' },
    { dataSourceId: CHILD_DS, index: 0, content: 'Shoe care: clean your running shoes after every run. Shoes love it.' },
  ]);
  await db.insert(conversations).values({ id: CONVO, chatbotId: BOT });
  await db.insert(messages).values([{ conversationId: CONVO, role: 'user', content: 'hi' }, { conversationId: CONVO, role: 'assistant', content: 'hello' }]);
  await db.insert(conversationAnalyses).values({ conversationId: CONVO, intents: ['buy shoes'], mood: 'happy', converted: true });
  await db.insert(passwordResetTokens).values({ email: 'ann@shop.test', tokenHash: 'd'.repeat(64) });
  await db.insert(emailJobs).values({ kind: 'password-reset', payload: { to: 'ann@shop.test' } });
  return user;
}

for (const variant of databaseVariants()) {
  t.test(`postgres contract (${variant.name})`, { skip: variant.skip }, async (t) => {
    // From an empty database: other suites start from a migrated template, this one proves the migrations.
    const tdb = await variant.open({ migrate: false });
    t.teardown(() => tdb.destroy());
    const { postgres } = tdb;
    const db = postgres.db;
    t.equal(postgres.kind, variant.name === 'pglite' ? 'embedded' : 'server');

    await t.test('migrate applies the migrations once and is idempotent', async (t) => {
      if (tdb.databaseUrl) {
        // Two services starting together: the advisory lock makes the second wait, then find nothing to do.
        const second = await createPostgres({ databaseUrl: tdb.databaseUrl, dataDir: tdb.dataDir, log: pino({ level: 'silent' }), poolSize: 2 });
        t.teardown(() => second.close());
        await Promise.all([postgres.migrate(), second.migrate()]);
      }
      await postgres.migrate();
      await postgres.migrate();
      await postgres.migrate();
      const applied = rows<{ n: number }>(await db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`));
      const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as { entries: unknown[] };
      t.ok(journal.entries.length >= 2, 'the journal lists the checked-in migrations');
      t.equal(applied[0].n, journal.entries.length, 'each migration is recorded once');
    });

    await t.test('ping answers', async (t) => {
      await t.resolves(postgres.ping());
    });

    await t.test('exclusive: one holder of a key at a time, released after the job, also when it throws', async (t) => {
      let release!: () => void;
      const first = postgres.exclusive(7_001, () => new Promise<string>((resolve) => { release = () => resolve('first'); }));
      // Let the first call take the lock before the others ask for it.
      await new Promise((resolve) => setTimeout(resolve, 100));
      t.equal(await postgres.exclusive(7_001, async () => 'second'), undefined, 'held: the second job does not run');
      t.equal(await postgres.exclusive(7_002, async () => 'other key'), 'other key', 'another key is free');
      release();
      t.equal(await first, 'first');
      await t.rejects(postgres.exclusive(7_001, async () => { throw new Error('job failed'); }), /job failed/);
      t.equal(await postgres.exclusive(7_001, async () => 'again'), 'again', 'released after a result and after a throw');
    });

    const user = await seed(db);

    await t.test('insert and select through drizzle, jsonb and arrays round-trip', async (t) => {
      const [account] = await db.select().from(accounts).where(eq(accounts.id, ACCOUNT));
      t.same(account.cmsProviders, ['shopify']);
      const [other] = await db.select().from(accounts).where(eq(accounts.id, OTHER_ACCOUNT));
      t.same(other.cmsProviders, [], 'cms providers default to an empty array');
      const [bot] = await db.select().from(chatbots).where(eq(chatbots.id, BOT));
      t.equal(bot.language, 'en');
      t.equal(bot.status, 'active');
      t.equal(bot.integratedAt, '2026-01-31');
      t.same(bot.settings, { companyName: 'A', abTestEnabled: true });
      t.ok(bot.createdAt instanceof Date);
      const [ds] = await db.select().from(dataSources).where(eq(dataSources.id, DS));
      t.same(ds.extraTags, [{ name: 'static_category', value: 'shoes' }]);
      t.equal(ds.parentId, null);
      const [analysis] = await db.select().from(conversationAnalyses);
      t.same(analysis.intents, ['buy shoes']);
      t.same(analysis.complaints, []);
      const chunkRows = await db.select({ embedding: chunks.embedding }).from(chunks).where(and(eq(chunks.dataSourceId, DS), eq(chunks.index, 0)));
      t.same(chunkRows[0].embedding?.map((x) => Math.round(x * 10) / 10), [0.1, 0.2]);
      const [job] = await db.select().from(emailJobs);
      t.equal(job.status, 'pending');
      t.equal(job.attempts, 0);
    });

    await t.test('constraints: lower-case unique e-mail, roles, data source account = chatbot account', async (t) => {
      await t.rejects(db.insert(users).values({ accountId: ACCOUNT, email: 'Ann@Shop.test', passwordHash: 'x' }), 'mixed-case e-mail refused');
      await t.rejects(db.insert(users).values({ accountId: OTHER_ACCOUNT, email: 'ann@shop.test', passwordHash: 'x' }), 'duplicate e-mail refused');
      await t.rejects(db.insert(messages).values({ conversationId: CONVO, role: 'system' as 'user', content: 'x' }), 'unknown role refused');
      await t.rejects(
        db.insert(dataSources).values({ chatbotId: BOT, accountId: OTHER_ACCOUNT, name: 'x', type: 'text', status: 'completed' }),
        'a data source cannot claim another account than its chatbot',
      );
    });

    await t.test('generated tsvector column, GIN index and ranked search', async (t) => {
      const idx = rows<{ indexdef: string }>(await db.execute(sql`select indexdef from pg_indexes where indexname = 'chunks_search_idx'`));
      t.equal(idx.length, 1);
      t.match(idx[0].indexdef, /USING gin \(search\)/);
      const hits = rows<{ content: string; score: number }>(await db.execute(sql`
        select content, ts_rank(search, q) as score
        from chunks, websearch_to_tsquery('english', ${'running shoe'}) q
        where search @@ q order by score desc`));
      t.equal(hits.length, 2, 'stemming matches "shoes" for "shoe"; the return-policy chunk does not match');
      t.match(hits[0].content, /Shoe care/, 'the chunk naming shoes three times ranks first');
      t.ok(hits[0].score > hits[1].score);
      t.equal(typeof hits[0].score, 'number');
      // With the planner told not to scan sequentially, the search must be able to use the GIN index.
      const plan = await db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        return rows<{ 'QUERY PLAN': string }>(await tx.execute(sql`explain select id from chunks where search @@ websearch_to_tsquery('english', 'shoes')`));
      });
      t.match(plan.map((r) => r['QUERY PLAN']).join('\n'), /chunks_search_idx/);
      await db.update(chunks).set({ content: 'now about hats' }).where(and(eq(chunks.dataSourceId, DS), eq(chunks.index, 1)));
      const hats = rows(await db.execute(sql`select id from chunks where search @@ plainto_tsquery('english', 'hat')`));
      t.equal(hats.length, 1, 'the generated column follows content updates');
    });

    await t.test('foreign keys cascade', async (t) => {
      await db.delete(dataSources).where(eq(dataSources.id, DS));
      t.equal((await db.select().from(dataSources).where(eq(dataSources.id, CHILD_DS))).length, 0, 'child data source removed with its parent');
      t.equal((await db.select().from(chunks)).length, 0, 'chunks removed with their data sources');
      await db.delete(accounts).where(eq(accounts.id, ACCOUNT));
      for (const table of [users, apiKeys, authTokens, sessions, chatbots, conversations, messages, conversationAnalyses]) {
        t.equal((await db.select().from(table)).length, 0);
      }
      t.equal((await db.select().from(users).where(eq(users.id, user.id))).length, 0);
      t.equal((await db.select().from(accounts)).length, 1, 'the other account stays');
    });

    await t.test('close is idempotent and ping fails afterwards', async (t) => {
      await postgres.close();
      await postgres.close();
      await t.rejects(postgres.ping());
    });
  });
}

t.test('PGlite data persists across reopen of the same DATA_DIR', async (t) => {
  const tdb = await databaseVariants()[0].open();
  t.teardown(() => tdb.destroy());
  await tdb.postgres.db.insert(accounts).values({ id: ACCOUNT, name: 'Persisted' });
  await tdb.postgres.close();
  const reopened = await createPostgres({ dataDir: tdb.dataDir, log: pino({ level: 'silent' }) });
  t.teardown(() => reopened.close());
  await reopened.migrate();
  const [row] = await reopened.db.select().from(accounts);
  t.equal(row.name, 'Persisted');
  await reopened.close();
  await t.rejects(reopened.ping(), 'ping after close fails');
});
