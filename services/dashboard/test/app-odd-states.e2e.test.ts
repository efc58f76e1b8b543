/**
 * The odd states of the app pages (issue 58): a chatbot without events shows the setup steps,
 * not a page of zeros; the 404 page and /login while logged in lead back into the app (its
 * layout, a way back); every state badge is styled (a firing alert's is the loud one); a paused
 * chatbot says so on each of its own pages.
 */
import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { ANN, IDS, KEY, digestWorld, loginCookie, openDigestClickHouse } from './digest-harness.js';
import Fastify from 'fastify';
import { eq } from 'drizzle-orm';
import { chatbots, conversations } from '@chatlytics/postgres';
import { stateBadge } from '../src/html/components.js';
import { pagesNotFound } from '../src/http/not-found.js';

const ch = await openDigestClickHouse(t);
const pglite = databaseVariants().find((v) => v.name === 'pglite')!;

t.test('empty chatbot, dead ends and badges', async (t) => {
  const world = await digestWorld(t, pglite, ch);
  const app = await world.build({ alerts: { evaluateIntervalMs: 0 } });
  const cookie = await loginCookie(app, ANN);
  const get = (url: string, headers: Record<string, string> = { cookie }) => app.inject({ method: 'GET', url, headers: { accept: 'text/html', ...headers } });

  // A new chatbot: the steps to its first event, no headline of zeros.
  const created = await app.inject({ method: 'POST', url: '/api/dashboard/chatbots', headers: { authorization: `Bearer ${KEY}` }, payload: { name: 'Brand new bot' } });
  t.equal(created.statusCode, 201, created.body);
  const fresh = created.json().data.chatbot.id;
  t.ok(fresh, 'the new chatbot\'s id');
  const empty = await get(`/app/${fresh}/analytics`);
  t.equal(empty.statusCode, 200);
  t.match(empty.body, /data-empty-state/, 'the setup steps');
  t.match(empty.body, new RegExp(`href="/app/${fresh}/setup"`), 'leading to the Setup tab');
  t.notMatch(empty.body, /data-metric=/, 'no headline of zeros');
  t.match(empty.body, /data-controls/, 'the timeframe stays choosable');
  const busy = await get(`/app/${IDS.botA}/analytics?timeframe=30`);
  t.notMatch(busy.body, /data-empty-state/, 'a chatbot with events shows its numbers');
  t.match(busy.body, /data-metric="revenue_after_chat"/);

  // The 404 page and an error page: the app's layout (its style sheet and header) and a way back.
  // An unknown path outside the routes: the servers' not-found handler (pagesNotFound).
  const bare = Fastify();
  bare.setNotFoundHandler(pagesNotFound);
  t.teardown(() => bare.close());
  const unknown = (url: string) => bare.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
  for (const [url, res] of [
    ['/no/such/page', await unknown('/no/such/page')], ['/app/not-a-chatbot (logged in)', await get('/app/not-a-chatbot/analytics')],
    [`another account's chatbot`, await get(`/app/${IDS.botOther}/analytics`)],
  ] as const) {
    t.equal(res.statusCode, 404, url);
    t.match(res.body, /<link rel="stylesheet" href="\/assets\/app\.css/, `${url}: the app's style sheet`);
    t.match(res.body, /<header class="top">/, `${url}: the app's header`);
    t.match(res.body, /href="\/app">Back to your chatbots<\/a>/, `${url}: a way back`);
  }
  // Logged in, the log-in page leads into the app; the profile wears the app's layout.
  const login = await get('/login');
  t.equal(login.statusCode, 302);
  t.equal(login.headers.location, '/app');
  const profile = await get('/settings/profile');
  t.equal(profile.statusCode, 200);
  t.match(profile.body, /<header class="top">/);
  t.match(profile.body, /id="switch-chatbot"/, 'with the chatbot switcher');

  // Every state badge styled: the firing one loud, none unstyled.
  t.match(stateBadge('firing'), /class="badge danger"/);
  t.match(stateBadge('failed'), /class="badge danger"/);
  t.match(stateBadge('ok'), /class="badge ok"/);
  t.match(stateBadge('processing'), /class="badge warn"/);
  t.match(stateBadge('paused'), /class="badge off"/);
  const alert = await app.inject({ method: 'POST', url: `/api/dashboard/chatbots/${IDS.botA}/alerts`, headers: { authorization: `Bearer ${KEY}` }, payload: { kind: 'silence', window_minutes: 1 } });
  t.equal(alert.statusCode, 201);
  const page = await get(`/app/${IDS.botA}/alerts`);
  t.match(page.body, /<span class="badge (ok|danger)" data-state="(ok|firing)">/, 'the alert\'s state as a styled badge');

  // A paused chatbot: the notice on each of its own pages, from the page frame; none elsewhere.
  await world.tdb.postgres.db.update(chatbots).set({ status: 'paused' }).where(eq(chatbots.id, IDS.botB));
  const [conversation] = await world.tdb.postgres.db.select({ id: conversations.id }).from(conversations).where(eq(conversations.chatbotId, IDS.botA)).limit(1);
  const notice = /<div class="banner paused" role="status" data-paused><strong>This chatbot is paused\.<\/strong>[^<]*<a href="\/app">your chatbots<\/a>/;
  for (const view of ['analytics', 'analytics?timeframe=30', 'insights', 'live', 'alerts', 'setup', 'tracking']) {
    const res = await get(`/app/${IDS.botB}/${view}`);
    t.equal(res.statusCode, 200, `${view}: ${res.statusCode}`);
    t.match(res.body, notice, `${view}: the paused chatbot says so`);
    t.equal(res.body.match(/data-paused/g)?.length, 1, `${view}: once`);
    t.ok(res.body.indexOf('data-paused') > res.body.indexOf('<main id="main">'), `${view}: inside the page's content`);
    t.notMatch((await get(`/app/${IDS.botA}/${view}`)).body, /data-paused/, `${view}: an active chatbot's page has no notice`);
  }
  t.notMatch((await get(`/app/${IDS.botA}/conversations/${conversation!.id}`)).body, /data-paused/, 'nor its conversation page');
  await world.tdb.postgres.db.update(chatbots).set({ status: 'paused' }).where(eq(chatbots.id, IDS.botA));
  t.match((await get(`/app/${IDS.botA}/conversations/${conversation!.id}`)).body, notice, 'a paused chatbot\'s conversation page says so too');
  for (const url of ['/app', '/app/settings', '/app/data-sources']) t.notMatch((await get(url)).body, /data-paused/, `${url}: no chatbot's page, no notice`);
});
