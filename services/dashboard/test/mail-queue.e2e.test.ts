import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { createPostgres } from '@chatlytics/postgres';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createJobQueue as createEmailJobRepository } from '../src/jobs/queue.js';
import { loadMailTemplates } from '../src/mail/templates.js';
import { createJobWorker as createMailWorker } from '../src/jobs/worker.js';
import { ANN, buildResetApp, openSeededDatabase, resetLinkOf, rows, waitFor, waitForMail } from './password-reset-harness.js';

const silent = pino({ level: 'silent' });
const JSON_ACCEPT = { accept: 'application/json' };
const pglite = databaseVariants().find((v) => v.name === 'pglite')!;

interface Captured { headers: http.IncomingHttpHeaders; url: string; body: Record<string, unknown> }

/** A stand-in for the Resend API: answers `plan[i]` to the i-th request (then the last entry). */
async function captureServer(t: { teardown(fn: () => unknown): void }) {
  const seen: Captured[] = [];
  let plan: number[] = [200];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      seen.push({ headers: req.headers, url: req.url ?? '', body: JSON.parse(raw || '{}') });
      const status = plan[Math.min(seen.length - 1, plan.length - 1)];
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status === 200 ? { id: `email-${seen.length}` } : { name: 'internal_server_error', message: 'boom', statusCode: status }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => server.close(r)));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    reset(next: number[]) { seen.length = 0; plan = next; },
  };
}

t.test('templates: compiled once, user data escaped in HTML, kept on one line in text', async (t) => {
  const templates = await loadMailTemplates();
  t.equal(await loadMailTemplates(), templates, 'cached per process');
  const mail = templates.render('reset-password', { email: '<b>x</b>@y.test\nBcc: z', resetUrl: 'http://a.test/r?x=1&y=2', expireMinutes: '60' });
  t.match(mail.html, '&lt;b&gt;x&lt;/b&gt;@y.test');
  t.notMatch(mail.html, '<b>x</b>');
  t.match(mail.html, 'href="http://a.test/r?x=1&amp;y=2"');
  t.match(mail.text, '<b>x</b>@y.test Bcc: z', 'plain text is not HTML-escaped, but control characters are gone');
  t.match(mail.text, 'http://a.test/r?x=1&y=2');
  t.match(mail.html, /<!doctype html>/i, 'MJML output');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-tpl-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const name of ['reset-password', 'password-changed']) {
    fs.copyFileSync(path.join(import.meta.dirname, '../templates', `${name}.mjml`), path.join(dir, `${name}.mjml`));
    fs.copyFileSync(path.join(import.meta.dirname, '../templates', `${name}.txt`), path.join(dir, `${name}.txt`));
  }
  fs.appendFileSync(path.join(dir, 'password-changed.txt'), '{{typo}}');
  await t.rejects(loadMailTemplates(dir), /unknown placeholders \[typo\]/, 'a wrong placeholder stops start-up');
});

t.test('Resend delivery through the real SDK: retries with backoff, then sent; permanent failure; stored template', async (t) => {
  const api = await captureServer(t);
  const tdb = await openSeededDatabase(t, pglite);
  const h = await buildResetApp(t, {
    postgres: tdb.postgres, dataDir: tdb.dataDir,
    env: { RESEND_API_KEY: 're_test_key', RESEND_BASE_URL: api.url, MAIL_FROM: 'Chatlytics <no-reply@chatlytics.test>' },
    tuning: { rateLimits: { requestsPerMinute: 100 } },
  });
  const job = async () => rows<{ status: string; attempts: number; last_error: string | null }>(
    await tdb.postgres.db.execute(sql`select status, attempts, last_error from jobs order by created_at desc limit 1`))[0];
  const request = () => h.app.inject({ method: 'POST', url: '/forgot-password', headers: JSON_ACCEPT, payload: { email: ANN.email } });

  t.test('fails twice, succeeds on the third attempt: one e-mail, one idempotency key', async (t) => {
    api.reset([500, 502, 200]);
    t.equal((await request()).statusCode, 200);
    const done = await waitFor('the job to be sent', async () => { const j = await job(); return j?.status === 'sent' && j; });
    t.equal(done.attempts, 3);
    t.equal(api.seen.length, 3);
    t.same(new Set(api.seen.map((s) => s.headers['idempotency-key'])).size, 1, 'the same key on every attempt');
    const last = api.seen[2];
    t.equal(last.url, '/emails');
    t.equal(last.headers.authorization, 'Bearer re_test_key');
    t.equal(last.body.to, 'ann@shop-a.test');
    t.equal(last.body.from, 'Chatlytics <no-reply@chatlytics.test>');
    t.equal(last.body.subject, 'Reset your Chatlytics password');
    const link = resetLinkOf({ text: String(last.body.text) });
    t.same(api.seen.map((s) => resetLinkOf({ text: String(s.body.text) }).token), [link.token, link.token, link.token], 'a retry resends the same link');
    t.match(String(last.body.html), link.token);
    t.equal(h.logs.filter((l) => l.msg === 'e-mail job failed; will retry').length, 2);
    const res = await h.app.inject({ method: 'POST', url: '/reset-password', headers: JSON_ACCEPT,
      payload: { token: link.token, email: ANN.email, password: 'via resend link', password_confirmation: 'via resend link' } });
    t.equal(res.statusCode, 200, 'the delivered link works');
    await waitFor('the password-changed notice', () => api.seen.find((s) => /changed/.test(String(s.body.subject))));
  });

  t.test('fails three times: status failed, error logged', async (t) => {
    h.clock.advance(5 * 60_000);
    api.reset([500]);
    await request();
    const failed = await waitFor('the job to fail', async () => { const j = await job(); return j?.status === 'failed' && j; });
    t.equal(failed.attempts, 3);
    t.match(failed.last_error, /e-mail delivery failed: internal_server_error \(500\): boom/);
    const logged = h.logs.find((l) => l.msg === 'e-mail job failed permanently');
    t.ok(logged, 'an error line');
    t.equal(logged?.level, 50);
    t.equal(api.seen.length, 3);
  });

  t.test('RESEND_TEMPLATE_ID: the provider template with variables instead of our HTML', async (t) => {
    const tdb2 = await openSeededDatabase(t, pglite);
    const h2 = await buildResetApp(t, {
      postgres: tdb2.postgres, dataDir: tdb2.dataDir,
      env: { RESEND_API_KEY: 're_test_key', RESEND_BASE_URL: api.url, RESEND_TEMPLATE_ID: 'tmpl_reset' },
    });
    api.reset([200]);
    await h2.app.inject({ method: 'POST', url: '/forgot-password', headers: JSON_ACCEPT, payload: { email: ANN.email } });
    const sent = await waitFor('the API call', () => api.seen[0]);
    const template = sent.body.template as { id: string; variables: Record<string, string> };
    t.equal(template.id, 'tmpl_reset');
    t.match(template.variables.resetUrl, /^http:\/\/localhost:3000\/reset-password\/[A-Za-z0-9_-]{43}\?email=ann%40shop-a\.test$/);
    t.equal(template.variables.email, 'ann@shop-a.test');
    t.notOk('html' in sent.body, 'no HTML of ours');
  });
});

for (const variant of databaseVariants()) {
  t.test(`a queued e-mail survives a restart (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await openSeededDatabase(t, variant);
    const first = await buildResetApp(t, { postgres: tdb.postgres, dataDir: tdb.dataDir, tuning: { mail: { worker: false } } });
    t.equal((await first.app.inject({ method: 'POST', url: '/forgot-password', headers: JSON_ACCEPT, payload: { email: ANN.email } })).statusCode, 200);
    await first.app.close();
    await tdb.postgres.close();

    // A new process: the same PGlite directory or the same database, nothing kept in memory.
    const reopened = await createPostgres({ databaseUrl: tdb.databaseUrl, dataDir: tdb.dataDir, log: silent, poolSize: 2 });
    t.teardown(() => reopened.close());
    await reopened.migrate();
    const pending = rows<{ status: string }>(await reopened.db.execute(sql`select status from jobs`));
    t.same(pending, [{ status: 'pending' }], 'the job waited in the table');
    const second = await buildResetApp(t, { postgres: reopened, dataDir: tdb.dataDir });
    const mail = await waitForMail(second.outboxDir, ANN.email);
    t.ok(resetLinkOf(mail).token, 'sent after the restart');
    await second.app.close();
    await reopened.close();
  });

  t.test(`queue: SKIP LOCKED claims, leases, attempts (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    const jobs = createEmailJobRepository({ db: tdb.postgres.db });
    const now = () => new Date();
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => jobs.enqueue('probe', { i }, new Date(Date.now() - 1000))));
    const handled: string[] = [];
    const handlers = { probe: async (job: { id: string; payload: Record<string, unknown> }) => { handled.push(job.id); return { outcome: 'sent' as const, payload: job.payload }; } };
    const workers = [0, 1].map(() => createMailWorker({ jobs, handlers, log: silent, clock: now }));
    const counts = await Promise.all(workers.map((w) => w.runDue()));
    t.equal(counts[0] + counts[1], 12, 'every job once between two workers');
    t.same([...handled].sort(), [...ids].sort(), 'no job twice');

    // A worker died holding a job: once its lease is over the job is due again.
    const orphan = await jobs.enqueue('probe', {}, new Date(Date.now() - 1000));
    t.equal((await jobs.claimNext(now(), 60_000))?.id, orphan);
    t.equal(await jobs.claimNext(now(), 60_000), null, 'hidden while leased');
    t.equal((await jobs.claimNext(new Date(Date.now() + 61_000), 60_000))?.id, orphan, 'due again after the lease');
    // ...and a job that keeps killing workers runs out of attempts: its 4th claim fails it.
    t.equal((await jobs.claimNext(new Date(Date.now() + 200_000), 60_000))?.attempts, 3);
    const later = createMailWorker({ jobs, handlers, log: silent, clock: () => new Date(Date.now() + 10 * 60_000) });
    t.equal(await later.runDue(), 1);
    const failed = await jobs.find(orphan);
    t.equal(failed?.status, 'failed');
    t.match(failed?.lastError, /abandoned/);
    t.equal(failed?.attempts, 4);
  });
}
