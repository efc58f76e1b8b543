/**
 * Migration 0011 on a database with chatbots: each existing chatbot shows its money in EUR (what
 * the pages showed before there was a choice), and the column refuses what is not a code's shape.
 */
import fs from 'node:fs';
import t from 'tap';
import { sql } from 'drizzle-orm';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { databaseVariants } from '../src/testing.js';
import { migrationsBefore } from './migrations-before.js';

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;


const ACCOUNT = '00000000-0000-4000-8000-000000000001';
const BOTS = ['00000000-0000-4000-8000-0000000000b1', '00000000-0000-4000-8000-0000000000b2'];

for (const variant of databaseVariants()) {
  t.test(`migration 0011 shows every chatbot's money in EUR until the shop chooses (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open({ migrate: false });
    t.teardown(() => tdb.destroy());
    const { db } = tdb.postgres;
    const before = migrationsBefore('0011_display_currency');
    t.teardown(() => fs.rmSync(before, { recursive: true, force: true }));
    await migrate(db as never, { migrationsFolder: before });
    await db.execute(sql`insert into accounts (id, name) values (${ACCOUNT}, 'Shop')`);
    for (const id of BOTS) await db.execute(sql`insert into chatbots (id, account_id, name) values (${id}, ${ACCOUNT}, 'Bot')`);

    await tdb.postgres.migrate();

    const after = rows<{ display_currency: string }>(await db.execute(sql`select display_currency from chatbots order by id`));
    t.same(after.map((r) => r.display_currency), ['EUR', 'EUR'], 'the currency the pages showed before');
    await db.execute(sql`update chatbots set display_currency = 'SEK' where id = ${BOTS[0]}`);
    t.same(rows<{ display_currency: string }>(await db.execute(sql`select display_currency from chatbots order by id`)).map((r) => r.display_currency), ['SEK', 'EUR']);
    // The dashboard checks the code against the rate table; the column keeps at least its shape.
    for (const bad of ['sek', 'SEKK', '']) {
      const refused = await db.execute(sql`update chatbots set display_currency = ${bad} where id = ${BOTS[1]}`).then(() => null, (err: Error) => err);
      // drizzle wraps the driver's error: the constraint's name is in its cause.
      t.match(`${refused?.message} ${(refused?.cause as Error | undefined)?.message}`, /chatbots_display_currency_check/, JSON.stringify(bad));
    }
  });
}
