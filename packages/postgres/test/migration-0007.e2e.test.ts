/**
 * Migration 0007 on a database with queued work: every e-mail job and every webhook delivery,
 * pending, running, sent or failed, is in `jobs` afterwards with its id, state, attempts, due
 * time and error (a delivery's own columns in its payload, kind `webhook`), and the two old
 * tables are gone.
 */
import fs from 'node:fs';
import t from 'tap';
import { sql } from 'drizzle-orm';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { databaseVariants } from '../src/testing.js';
import { migrationsBefore } from './migrations-before.js';

const rows = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;


const ACCOUNT = '00000000-0000-4000-8000-000000000001';
const CHATBOT = '00000000-0000-4000-8000-0000000000b1';
const ALERT = '00000000-0000-4000-8000-0000000000c1';
const TRANSITION = '00000000-0000-4000-8000-0000000000d1';
const MAIL_PENDING = '00000000-0000-4000-8000-0000000000e1';
const MAIL_SENT = '00000000-0000-4000-8000-0000000000e2';
const HOOK_RETRYING = '00000000-0000-4000-8000-0000000000f1';
const HOOK_FAILED = '00000000-0000-4000-8000-0000000000f2';

interface JobRow { id: string; kind: string; payload: Record<string, unknown>; status: string; attempts: number; run_at: Date | string; last_error: string | null }

for (const variant of databaseVariants()) {
  t.test(`migration 0007 moves queued e-mails and webhooks into jobs (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open({ migrate: false });
    t.teardown(() => tdb.destroy());
    const { db } = tdb.postgres;
    const before = migrationsBefore('0007_jobs');
    t.teardown(() => fs.rmSync(before, { recursive: true, force: true }));
    // drizzle's migrator only reads the folder and runs the SQL through the session: the same for both drivers.
    await migrate(db as never, { migrationsFolder: before });

    await db.execute(sql`insert into accounts (id, name) values (${ACCOUNT}, 'Shop')`);
    await db.execute(sql`insert into chatbots (id, account_id, name) values (${CHATBOT}, ${ACCOUNT}, 'Bot')`);
    await db.execute(sql`insert into alerts (id, chatbot_id, kind, window_minutes, webhook_url, secret) values (${ALERT}, ${CHATBOT}, 'silence', 5, 'https://hooks.test/a', 's')`);
    await db.execute(sql`insert into alert_transitions (id, alert_id, state, value, at) values (${TRANSITION}, ${ALERT}, 'firing', 0, '2026-03-01T12:00:00Z')`);
    await db.execute(sql`insert into email_jobs (id, kind, payload, run_at) values (${MAIL_PENDING}, 'password_reset_link', '{"email":"ann@shop.test"}', '2026-03-01T12:00:00Z')`);
    await db.execute(sql`insert into email_jobs (id, kind, payload, status, attempts, run_at) values (${MAIL_SENT}, 'weekly_digest', '{"userId":"u"}', 'sent', 1, '2026-03-01T11:00:00Z')`);
    await db.execute(sql`insert into webhook_deliveries (id, alert_id, transition_id, url, body, signature, status, attempts, next_attempt_at, last_error)
      values (${HOOK_RETRYING}, ${ALERT}, ${TRANSITION}, 'https://hooks.test/a', '{"state":"firing"}', 'sha256=ab', 'pending', 2, '2026-03-01T12:00:30Z', 'answered 500')`);
    await db.execute(sql`insert into webhook_deliveries (id, alert_id, transition_id, url, body, signature, status, attempts, next_attempt_at, last_error)
      values (${HOOK_FAILED}, ${ALERT}, ${TRANSITION}, 'https://hooks.test/a', '{"state":"firing"}', 'sha256=ab', 'failed', 6, '2026-03-01T12:05:00Z', 'answered 502')`);

    await tdb.postgres.migrate();

    const jobs = rows<JobRow>(await db.execute(sql`select id, kind, payload, status, attempts, run_at, last_error from jobs order by id`));
    const at = (v: Date | string) => new Date(v).toISOString();
    t.same(jobs.map((j) => [j.id, j.kind, j.status, j.attempts, at(j.run_at), j.last_error]), [
      [MAIL_PENDING, 'password_reset_link', 'pending', 0, '2026-03-01T12:00:00.000Z', null],
      [MAIL_SENT, 'weekly_digest', 'sent', 1, '2026-03-01T11:00:00.000Z', null],
      [HOOK_RETRYING, 'webhook', 'pending', 2, '2026-03-01T12:00:30.000Z', 'answered 500'],
      [HOOK_FAILED, 'webhook', 'failed', 6, '2026-03-01T12:05:00.000Z', 'answered 502'],
    ], 'every job with its id, state, attempts, due time and error');
    t.same(jobs[0].payload, { email: 'ann@shop.test' }, 'an e-mail keeps its payload');
    t.same(jobs[2].payload, { alertId: ALERT, transitionId: TRANSITION, url: 'https://hooks.test/a', body: '{"state":"firing"}', signature: 'sha256=ab' },
      "a delivery's columns are its payload");
    const tables = rows<{ name: string }>(await db.execute(sql`select table_name as name from information_schema.tables where table_name in ('email_jobs', 'webhook_deliveries', 'jobs')`));
    t.same(tables.map((r) => r.name), ['jobs'], 'the old queues are gone');
    await t.rejects(db.execute(sql`insert into jobs (kind, payload, status) values ('webhook', '{}', 'lost')`), 'the status check came along');
  });
}
