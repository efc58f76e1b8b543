/**
 * Migration 0003 on a database that already has data: auth tokens issued without an expiry get
 * one (now + 30 days), existing API keys keep every right (`manage`) while new ones default to
 * `read`, and a scope outside read/manage is refused.
 */
import fs from 'node:fs';
import t from 'tap';
import { sql } from 'drizzle-orm';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { databaseVariants } from '../src/testing.js';
import { migrationsBefore } from './migrations-before.js';

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;


for (const variant of databaseVariants()) {
  t.test(`migration 0003 over existing keys and tokens (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open({ migrate: false });
    t.teardown(() => tdb.destroy());
    const { db } = tdb.postgres;
    const before = migrationsBefore('0003_auth_scopes_token_expiry_login_throttle');
    t.teardown(() => fs.rmSync(before, { recursive: true, force: true }));
    // drizzle's migrator only reads the folder and runs the SQL through the session: the same for both drivers.
    await migrate(db as never, { migrationsFolder: before });

    await db.execute(sql`insert into accounts (id, name) values ('00000000-0000-4000-8000-000000000001', 'Shop')`);
    await db.execute(sql`insert into users (id, account_id, email, password_hash)
      values ('00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-000000000001', 'ann@shop.test', 'x')`);
    await db.execute(sql`insert into api_keys (account_id, name, key_hash, prefix) values ('00000000-0000-4000-8000-000000000001', 'old', ${'a'.repeat(64)}, 'ck_aaaa')`);
    await db.execute(sql`insert into auth_tokens (user_id, token_hash) values ('00000000-0000-4000-8000-0000000000a1', ${'b'.repeat(64)})`);
    await db.execute(sql`insert into auth_tokens (user_id, token_hash, expires_at) values ('00000000-0000-4000-8000-0000000000a1', ${'c'.repeat(64)}, '2030-01-01T00:00:00Z')`);

    const startedAt = Date.now();
    await tdb.postgres.migrate();

    const tokens = rows<{ token_hash: string; expires_at: Date | string }>(await db.execute(sql`select token_hash, expires_at from auth_tokens order by token_hash`));
    const unbounded = new Date(tokens[0].expires_at).getTime();
    const thirtyDays = 30 * 86_400_000;
    t.ok(unbounded >= startedAt + thirtyDays - 60_000 && unbounded <= Date.now() + thirtyDays + 60_000, 'a token without expiry now expires in 30 days');
    t.equal(new Date(tokens[1].expires_at).toISOString(), '2030-01-01T00:00:00.000Z', 'an existing expiry is kept');
    await t.rejects(db.execute(sql`insert into auth_tokens (user_id, token_hash) values ('00000000-0000-4000-8000-0000000000a1', ${'d'.repeat(64)})`),
      'a new token must have an expiry');

    t.same(rows(await db.execute(sql`select name, scope from api_keys`)), [{ name: 'old', scope: 'manage' }], 'an existing key keeps its rights');
    await db.execute(sql`insert into api_keys (account_id, name, key_hash, prefix) values ('00000000-0000-4000-8000-000000000001', 'new', ${'e'.repeat(64)}, 'ck_eeee')`);
    t.same(rows(await db.execute(sql`select scope from api_keys where name = 'new'`)), [{ scope: 'read' }], 'a new key reads by default');
    await t.rejects(db.execute(sql`update api_keys set scope = 'admin'`), 'only read or manage');
    t.same(rows(await db.execute(sql`select count(*)::int as n from login_failures`)), [{ n: 0 }], 'the throttle table exists');
  });
}
