/**
 * Every link an e-mail carries works (issue 58): without APP_URL the links are built from the
 * port the server listens on (PORT=3950 here, not 3000), and each one the weekly digest and an
 * alert e-mail carry answers 200 after log-in (following the app's redirects); the digest's
 * "Open the dashboard" opens exactly its week.
 */
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { users } from '@chatlytics/postgres';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { ANN, IDS, KEY, SECRET, digestWorld, loginCookie, openDigestClickHouse, readOutbox, waitForOutbox } from './digest-harness.js';
import { eq } from 'drizzle-orm';

const ORIGIN = 'http://localhost:3950';
const ch = await openDigestClickHouse(t);
const pglite = databaseVariants().find((v) => v.name === 'pglite')!;

const linksOf = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));

/** GET a path with the session, following the app's own redirects; the final status and path. */
async function open(app: FastifyInstance, cookie: string, url: string): Promise<{ status: number; path: string; body: string }> {
  let path = url;
  for (let hops = 0; hops < 5; hops++) {
    const res = await app.inject({ method: 'GET', url: path, headers: { cookie } });
    if (res.statusCode !== 302) return { status: res.statusCode, path, body: res.body };
    path = String(res.headers.location);
  }
  throw new Error(`too many redirects from ${url}`);
}

t.test('the digest and alert e-mails link to pages that answer 200 (PORT=3950, no APP_URL)', async (t) => {
  const world = await digestWorld(t, pglite, ch);
  await world.tdb.postgres.db.update(users).set({ weeklyDigest: false }).where(eq(users.email, 'ben@digest.test'));
  const config = loadConfig({ DATA_DIR: world.tdb.dataDir, PORT: '3950', SESSION_SECRET: SECRET });
  t.equal(config.appUrl, ORIGIN, 'the links\' base is the address the server listens on');
  const app = await world.build({ config, digest: { intervalMs: 20 }, alerts: { evaluateIntervalMs: 20 } });
  const cookie = await loginCookie(app, ANN);

  const digest = (await waitForOutbox(world.outbox, 2)).find((m) => m.to === ANN.email && m.subject.startsWith('Your Chatlytics week'))!;
  t.ok(digest, 'Ann\'s digest was sent');
  const links = linksOf(digest.html);
  t.ok(links.length >= 4, 'settings, unsubscribe and one button per chatbot');
  for (const link of links) t.ok(link.startsWith(`${ORIGIN}/`), `${link} uses the listening address`);
  t.match(digest.headers?.['List-Unsubscribe'], new RegExp(`^<${ORIGIN}/unsubscribe/`));
  const week = new URLSearchParams({ from: '2026-02-02', to: '2026-02-08' }).toString();
  for (const bot of [IDS.botA, IDS.botB]) {
    const button = `${ORIGIN}/app/${bot}/analytics?${week}`;
    t.ok(links.includes(button), 'the button opens exactly the digest\'s week');
    t.ok(digest.text.includes(`Details: ${button}`), 'and so does the text part');
  }
  for (const link of links) {
    const page = await open(app, cookie, link.slice(ORIGIN.length));
    t.equal(page.status, 200, `${link} answers 200 after log-in`);
  }

  // A firing alert's e-mail: its link, too.
  const created = await app.inject({
    method: 'POST', url: `/api/dashboard/chatbots/${IDS.botB}/alerts`, headers: { authorization: `Bearer ${KEY}` },
    payload: { kind: 'silence', window_minutes: 1, email: true },
  });
  t.equal(created.statusCode, 201);
  // Wait for that mail itself: another mail (a digest) arriving meanwhile must not end the wait.
  const isAlertMail = (m: { to: string; subject: string }) => m.to === ANN.email && !m.subject.startsWith('Your Chatlytics week');
  const until = Date.now() + 30_000;
  while (!readOutbox(world.outbox).some(isAlertMail) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  const alertMail = readOutbox(world.outbox).find(isAlertMail);
  t.ok(alertMail, 'the alert e-mail was sent');
  const alertLinks = linksOf(alertMail!.html).filter((l) => l.includes('/app/'));
  t.ok(alertLinks.length > 0);
  for (const link of alertLinks) {
    t.ok(link.startsWith(`${ORIGIN}/app/${IDS.botB}/alerts`), link);
    t.equal((await open(app, cookie, link.slice(ORIGIN.length))).status, 200, `${link} answers 200 after log-in`);
  }
});

t.test('GET /app/{chatbot} opens its analytics, keeping the query; another account\'s chatbot is the 404 page', async (t) => {
  const world = await digestWorld(t, pglite, ch);
  const app = await world.build({ alerts: { evaluateIntervalMs: 0 } });
  const cookie = await loginCookie(app, ANN);
  const res = await app.inject({ method: 'GET', url: `/app/${IDS.botA}?from=2026-02-02&to=2026-02-08`, headers: { cookie } });
  t.equal(res.statusCode, 302);
  t.equal(res.headers.location, `/app/${IDS.botA}/analytics?from=2026-02-02&to=2026-02-08`);
  t.equal((await open(app, cookie, `/app/${IDS.botB}`)).status, 200);
  const other = await app.inject({ method: 'GET', url: `/app/${IDS.botOther}`, headers: { cookie } });
  t.equal(other.statusCode, 404);
  t.match(other.headers['content-type'], /text\/html/);
  const guest = await app.inject({ method: 'GET', url: `/app/${IDS.botA}` });
  t.equal(guest.statusCode, 302, 'a guest goes to log in');
});
