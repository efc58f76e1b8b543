import path from 'node:path';
import t from 'tap';
import { sql } from 'drizzle-orm';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { TEST_SCRYPT_COST, verifyPassword } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import { FixtureError, parseFixture } from '../src/fixtures/schema.js';
import { createLocalRawContentStorage } from '../src/data-sources/raw-content-storage.js';
import { IDS, LONG_RAW, USERS, testFixture } from './fixture.js';

const TABLES = ['accounts', 'users', 'api_keys', 'chatbots', 'data_sources', 'chunks', 'conversations', 'messages', 'conversation_analyses'];

t.test('parseFixture: accepts the fixture format of services/standalone/README.md, reports problems with their paths', async (t) => {
  t.ok(parseFixture(JSON.parse(JSON.stringify(testFixture()))));
  t.ok(parseFixture({ accounts: [], events: [{ event: 'visitor' }] }), 'events are passed through untouched');
  const bad = { accounts: [{ id: 'nope', name: '', users: [{ email: 'not-an-email', password: 'x' }], chatbots: [{ id: IDS.alpha }] }] };
  try {
    parseFixture(bad);
    t.fail('should have thrown');
  } catch (err) {
    t.ok(err instanceof FixtureError);
    const problems = (err as FixtureError).problems.join('\n');
    t.match(problems, /\/accounts\/0\/id/);
    t.match(problems, /\/accounts\/0\/name/);
    t.match(problems, /\/accounts\/0\/users\/0\/email/);
    t.match(problems, /\/accounts\/0\/chatbots\/0/);
  }
  t.throws(() => parseFixture({ accounts: [{ id: IDS.accountA, name: 'x', apiKeys: [{ key: 'ck_short' }] }] }), FixtureError,
    'an API key with less than 128 bits is refused');
});

for (const variant of databaseVariants()) {
  t.test(`importFixture (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    const db = tdb.postgres.db;
    const storage = createLocalRawContentStorage(path.join(tdb.dataDir, 'storage'));
    const snapshot = async () => {
      const out: Record<string, unknown[]> = {};
      for (const table of TABLES) {
        out[table] = (await db.execute(sql.raw(`select * from ${table} order by 1, 2`)) as unknown as { rows: unknown[] }).rows;
      }
      return out;
    };
    const events: unknown[][] = [];
    const opts = { storage, passwordCost: TEST_SCRYPT_COST, onEvents: async (e: unknown[]) => { events.push(e); return { accepted: e.length }; } };

    const first = await importFixture(db, testFixture(), opts);
    t.same(first, {
      accounts: 2, users: 2, apiKeys: 2, chatbots: 3, dataSources: 7, chunks: 7, conversations: 3, messages: 3, analyses: 1,
      rawContents: 2, rawContentsSkipped: 0,
    });
    const before = await snapshot();
    t.equal(before.users.length, 2);
    t.equal((before.users as { email: string }[]).find((u) => u.email === USERS.ann.email.toLowerCase())?.email, 'ann@shop-a.test',
      'e-mails are stored lower-cased');
    t.equal(await storage.read('raw/site.txt'), LONG_RAW);

    await t.test('importing the same fixture again changes nothing', async (t) => {
      const second = await importFixture(db, testFixture(), opts);
      t.same(second, first);
      t.same(await snapshot(), before, 'every row of every table is identical, timestamps and password hashes included');
    });

    await t.test('a changed fixture updates rows in place', async (t) => {
      const fixture = testFixture();
      const bot = fixture.accounts[0].chatbots![0];
      bot.name = 'Alpha 2';
      bot.dataSources![0].chunks![0].content = 'Green hiking boots';
      fixture.accounts[0].users![0].password = 'new-password';
      await importFixture(db, fixture, opts);
      const after = await snapshot();
      t.equal(after.chatbots.length, before.chatbots.length);
      t.equal(after.chunks.length, before.chunks.length);
      const renamed = (after.chatbots as { id: string; name: string }[]).find((c) => c.id === IDS.alpha);
      t.equal(renamed?.name, 'Alpha 2');
      const chunk = (after.chunks as { id: string; content: string }[]).find((c) => c.id === IDS.chunk(3));
      t.equal(chunk?.content, 'Green hiking boots');
      const ann = (after.users as { email: string; password_hash: string }[]).find((u) => u.email === 'ann@shop-a.test')!;
      t.equal(await verifyPassword('new-password', ann.password_hash), true);
    });

    await t.test('events go to the hook; without storage raw contents are counted as skipped', async (t) => {
      const fixture = { ...testFixture(), events: [{ event: 'visitor', token: 'abcdefgh' }] };
      const summary = await importFixture(db, fixture, { passwordCost: TEST_SCRYPT_COST, onEvents: opts.onEvents });
      t.same(summary.events, { accepted: 1 });
      t.same(events.at(-1), [{ event: 'visitor', token: 'abcdefgh' }]);
      t.equal(summary.rawContents, 0);
      t.equal(summary.rawContentsSkipped, 2);
    });

    await t.test('a failure rolls the whole import back', async (t) => {
      const fixture = testFixture();
      fixture.accounts[1].chatbots![0].id = IDS.alpha; // claims account A's chatbot for account B...
      fixture.accounts[1].chatbots![0].dataSources![0].id = IDS.catalog; // ...and A's data source: refused by the FK
      fixture.accounts[1].name = 'Renamed B';
      await t.rejects(importFixture(db, fixture, opts));
      const [b] = (await db.execute(sql`select name from accounts where id = ${IDS.accountB}`) as unknown as { rows: { name: string }[] }).rows;
      t.equal(b.name, 'Shop B', 'the earlier upserts of the same import were rolled back');
    });
  });
}
