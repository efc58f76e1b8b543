/**
 * Migration 0010 on a database with chatbots: each existing chatbot gets no holdout (0 %) and a
 * holdout key of its own (the assignment's HMAC key: two chatbots sharing one would still get
 * independent arms, since the chatbot id is hashed too, but a key is meant to be per chatbot).
 */
import fs from 'node:fs';
import t from 'tap';
import { sql } from 'drizzle-orm';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { databaseVariants } from '../src/testing.js';
import { migrationsBefore } from './migrations-before.js';

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;


const ACCOUNT = '00000000-0000-4000-8000-000000000001';
const BOTS = ['00000000-0000-4000-8000-0000000000b1', '00000000-0000-4000-8000-0000000000b2', '00000000-0000-4000-8000-0000000000b3'];

for (const variant of databaseVariants()) {
  t.test(`migration 0010 gives every chatbot no holdout and a key of its own (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open({ migrate: false });
    t.teardown(() => tdb.destroy());
    const { db } = tdb.postgres;
    const before = migrationsBefore('0010_lift_holdout');
    t.teardown(() => fs.rmSync(before, { recursive: true, force: true }));
    await migrate(db as never, { migrationsFolder: before });
    await db.execute(sql`insert into accounts (id, name) values (${ACCOUNT}, 'Shop')`);
    for (const id of BOTS) await db.execute(sql`insert into chatbots (id, account_id, name) values (${id}, ${ACCOUNT}, 'Bot')`);

    await tdb.postgres.migrate();

    const after = rows<{ holdout_percent: number; holdout_key: string }>(await db.execute(sql`select holdout_percent, holdout_key from chatbots order by id`));
    t.same(after.map((r) => r.holdout_percent), [0, 0, 0], 'no holdout until the shop sets one');
    t.ok(after.every((r) => /^[0-9a-f-]{36}$/.test(r.holdout_key)), 'a random key each');
    t.equal(new Set(after.map((r) => r.holdout_key)).size, BOTS.length, 'no two chatbots share one');
  });
}
