/**
 * The weekly digest (services/dashboard/README.md "Weekly digest"): exactly once per user and
 * week across two dashboards and a restart, its figures equal to the statistics API's for the
 * same days, the List-Unsubscribe headers and the signed link, the preference API and the
 * settings checkbox.
 */
import t from 'tap';
import { eq, sql } from 'drizzle-orm';
import { digestSends, jobs as emailJobs, users } from '@chatlytics/postgres';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { buildDigestService, createDigestScheduler, DIGEST_JOB } from '../src/digest/index.js';
import { createChatbotRepository } from '../src/repositories/chatbot-repository.js';
import { createStatsService } from '../src/stats/run.js';
import type { MailTransport, OutgoingMail } from '../src/mail/transport.js';
import { loadConfig } from '@chatlytics/core';
import { silentLog } from './stats-fixtures.js';
import {
  ANN, APP_URL, BEN, IDS, KEY, NOW, OTTO, SECRET, digestWorld, loginCookie, openDigestClickHouse, readOutbox, waitForOutbox,
} from './digest-harness.js';

const ch = await openDigestClickHouse(t);
const asKey = { authorization: `Bearer ${KEY}` };
const DAY = 86_400_000;

for (const variant of databaseVariants()) {
  t.test(`exactly once per user and week (${variant.name})`, { skip: variant.skip }, async (t) => {
    const world = await digestWorld(t, variant, ch);
    const { db } = world.tdb.postgres;
    const sent: OutgoingMail[] = [];
    const transport: MailTransport = { kind: 'outbox', async send(mail) { sent.push(mail); } };
    const config = loadConfig({ APP_URL, SESSION_SECRET: SECRET });
    // One service per "process": each has its own statistics service and scheduler.
    const dashboardProcess = () => buildDigestService({
      config, db, transport, log: silentLog, clock: () => new Date(world.clock.now), secret: SECRET,
      stats: createStatsService({ clickhouse: ch, db, appUrl: APP_URL, clock: () => new Date(world.clock.now), cacheTtlMs: 0 }),
      chatbots: createChatbotRepository({ db }),
    });
    const jobs = async () => (await db.select({ n: sql<number>`count(*)::int` }).from(emailJobs).where(eq(emailJobs.kind, DIGEST_JOB)))[0].n;
    const [a, b] = [dashboardProcess(), dashboardProcess()];

    world.clock.now = Date.parse('2026-02-09T06:59:59.999Z');
    t.same(await Promise.all([a.queueDue(), b.queueDue()]), [0, 0], 'Monday 06:59: not due yet');
    world.clock.now = NOW;
    // Both at once, without the advisory lock: digest_sends alone decides.
    const counts = await Promise.all([a.queueDue(), b.queueDue(), a.queueDue()]);
    t.equal(counts.reduce((x, y) => x + y, 0), 3, 'three users, three digests between the concurrent runs');
    t.equal(await jobs(), 3, 'one mail job per user');
    // Through the schedulers (the lock) and after a "restart" (a new service later in the week).
    const schedulers = [a, b].map((digests) => createDigestScheduler({ digests, postgres: world.tdb.postgres, log: silentLog, intervalMs: 0 }));
    await Promise.all(schedulers.map((s) => s.runOnce()));
    world.clock.now = Date.parse('2026-02-15T23:59:00.000Z');
    t.equal(await dashboardProcess().queueDue(), 0, 'a restart on Sunday queues nothing again');
    t.equal(await jobs(), 3);
    const weeks = await db.select().from(digestSends);
    t.same(new Set(weeks.map((w) => w.weekStart)), new Set(['2026-02-09']), 'keyed by the Monday of the week');

    world.clock.now = Date.parse('2026-02-16T07:00:00.000Z');
    t.equal(await dashboardProcess().queueDue(), 3, 'the next week: again once each');
    t.equal(await jobs(), 6);
    const [job] = await db.select().from(emailJobs).where(eq(emailJobs.kind, DIGEST_JOB)).orderBy(sql`created_at desc`).limit(1);
    t.equal(job.payload.sendDay, '2026-02-16');
  });
}

const pglite = databaseVariants().find((v) => v.name === 'pglite')!;

t.test('two dashboards send one digest per user; its figures are the statistics API\'s', async (t) => {
  const world = await digestWorld(t, pglite, ch);
  const { db } = world.tdb.postgres;
  await db.update(users).set({ weeklyDigest: false }).where(eq(users.email, BEN.email));
  // Two dashboard processes with running schedulers and mail workers on one database.
  const apps = [await world.build({ digest: { intervalMs: 20 } }), await world.build({ digest: { intervalMs: 20 } })];
  const mails = await waitForOutbox(world.outbox, 2);
  await new Promise((r) => setTimeout(r, 400));
  t.same(readOutbox(world.outbox).map((m) => m.to).sort(), [ANN.email, OTTO.email], 'one each for Ann and Otto, none for Ben (switched off)');

  const mail = mails.find((m) => m.to === ANN.email)!;
  t.equal(mail.subject, 'Your Chatlytics week: 2026-02-02 to 2026-02-08');
  t.match(mail.headers?.['List-Unsubscribe'], /^<https:\/\/dash\.example\.test\/unsubscribe\/weekly-digest\?u=[0-9a-f-]{36}&s=[A-Za-z0-9_-]+>$/);
  t.equal(mail.headers?.['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click');
  t.match(mail.text, '2026-02-02 to 2026-02-08 (UTC), compared with 2026-01-26 to 2026-02-01.');

  const get = async (stat: string, query: Record<string, string>) => {
    const res = await apps[0].inject({ method: 'GET', url: `/api/dashboard/analytics/stats/${stat}`, query, headers: asKey });
    t.equal(res.statusCode, 200, `${stat} ${JSON.stringify(query)}`);
    return res.json();
  };
  const num = (s: string) => Number(s.replace(/[,€ %]/g, ''));
  let checked = 0;
  for (const [botId, name] of [[IDS.botA, 'Shop <assistant> & "friends"'], [IDS.botB, 'Second bot']]) {
    const section = mail.text.split(`== ${name} ==\n`)[1]?.split('\n\n')[0] ?? '';
    t.ok(section, `a section for ${name}`);
    const line = (label: string) => {
      const m = new RegExp(`^${label}: (\\S+(?: %)?) \\(previous 7 days: (\\S+(?: %)?);`, 'm').exec(section);
      return m ? [num(m[1]), num(m[2])] : [NaN, NaN];
    };
    const answers = [];
    for (const w of [{ from: '2026-02-02', to: '2026-02-08' }, { from: '2026-01-26', to: '2026-02-01' }]) {
      const q = { chatbot_id: botId, ...w };
      const [engagement, overview, purchases] = await Promise.all([get('engagement', q), get('overview', q), get('purchases', q)]);
      answers.push({ engagement, overview, purchases });
    }
    const [cur, prev] = answers;
    t.same(line('Visitors'), [cur.engagement.total_users, prev.engagement.total_users], `${name}: visitors = engagement.total_users`);
    t.same(line('Analysed conversations'), [cur.overview.total_conversations, prev.overview.total_conversations], `${name}: conversations = overview.total_conversations`);
    t.same(line('Conversion with chat'), [cur.purchases.conversion_rate_with_chat, prev.purchases.conversion_rate_with_chat], `${name}: conversion_rate_with_chat`);
    t.match(section, /^Revenue counted from purchase events on the shop's pages; after chat: after the first chat in the week\.$/m, `${name}: the revenue rule beside the figure`);
    t.same(line('Revenue after chat'), [cur.purchases.total_revenue_chatted_purchased, prev.purchases.total_revenue_chatted_purchased], `${name}: total_revenue_chatted_purchased`);
    const insights = await get('conversation-insights', { chatbot_id: botId, timeframe: '2026-02-02..2026-02-08' });
    const listed = (title: string) => (section.split(`${title}:\n`)[1] ?? '').split('\n').filter((l) => /^ {2}\d\. /.test(l)).slice(0, 3)
      .map((l) => /^ {2}\d\. (.*) \((\d+) conversations?\)$/.exec(l)!.slice(1, 3));
    const expected = (list: { item: string; count: number }[]) => list.slice(0, 3).map((x) => [x.item, String(x.count)]);
    t.same(listed('Top complaints'), expected(insights.most_common_complaints), `${name}: top complaints`);
    t.same(listed('Top missing information'), expected(insights.missing_information_overview), `${name}: top missing information`);
    if (botId === IDS.botA) {
      // The comparison means something only with data on both sides.
      t.ok(cur.engagement.total_users > 0 && prev.engagement.total_users > 0, 'visitors in both weeks');
      t.ok(cur.purchases.total_revenue_chatted_purchased > 0, 'revenue after chat');
      t.equal(insights.most_common_complaints.length >= 3, true, 'at least three complaints ranked');
      t.match(mail.html, `€${cur.purchases.total_revenue_chatted_purchased.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`, 'the HTML shows the same revenue');
    }
    checked++;
  }
  t.equal(checked, 2);
  t.notMatch(mail.html, 'Shop <assistant>', 'names are escaped in the HTML');
  t.match(mail.html, 'Shop &lt;assistant&gt; &amp; &quot;friends&quot;');
  t.match(mail.text, /== Second bot ==[^=]*Alerts that fired:\n\s+none\n/, 'the alerts section (the alerts table by default) says none fired');
  t.notMatch(mail.text, 'Other bot', "another account's chatbot is not in the digest");
});

t.test('alerts that fired come through the firedAlerts option', async (t) => {
  const world = await digestWorld(t, pglite, ch);
  const asked: [string, string, string][] = [];
  await world.build({
    digest: {
      intervalMs: 20,
      firedAlerts: async (chatbotId, from, to) => {
        asked.push([chatbotId, from.toISOString(), to.toISOString()]);
        return chatbotId === IDS.botA ? [{ name: 'Conversion dropped', firedAt: new Date('2026-02-04T10:15:00Z'), detail: 'below 2 %' }] : [];
      },
    },
  });
  const mail = (await waitForOutbox(world.outbox, 3)).find((m) => m.to === ANN.email)!;
  t.match(mail.text, 'Alerts that fired:\n  2026-02-04 10:15 UTC Conversion dropped: below 2 %');
  t.match(mail.text, /== Second bot ==[\s\S]*Alerts that fired:\n {2}none/);
  t.ok(asked.some(([id, from, to]) => id === IDS.botA && from === '2026-02-02T00:00:00.000Z' && to === '2026-02-08T23:59:59.999Z'), 'asked for the digest\'s window');
});

t.test('the unsubscribe link: signed, works without login, one-click POST', async (t) => {
  const world = await digestWorld(t, pglite, ch);
  const app = await world.build({ digest: { intervalMs: 20 } });
  const mail = (await waitForOutbox(world.outbox, 3)).find((m) => m.to === ANN.email)!;
  const link = /^<(.*)>$/.exec(mail.headers!['List-Unsubscribe'])![1];
  t.match(mail.text, link, 'the same link in the text');
  t.match(mail.html, link.replace(/&/g, '&amp;'), 'and in the HTML');
  const url = new URL(link);
  const path = `${url.pathname}${url.search}`;
  const enabled = async (email: string) => (await world.tdb.postgres.db.select().from(users).where(eq(users.email, email)))[0].weeklyDigest;

  const page = await app.inject({ method: 'GET', url: path });
  t.equal(page.statusCode, 200);
  t.match(page.body, 'Unsubscribe from the weekly digest');
  t.equal(page.headers['referrer-policy'], 'no-referrer');
  t.equal(await enabled(ANN.email), true, 'opening the link (a mail scanner) does not unsubscribe');

  const u = url.searchParams.get('u')!;
  const s = url.searchParams.get('s')!;
  const benId = (await world.tdb.postgres.db.select().from(users).where(eq(users.email, BEN.email)))[0].id;
  const tampered = [
    `${url.pathname}?u=${u}&s=${s.slice(0, -1)}${s.endsWith('A') ? 'B' : 'A'}`,
    `${url.pathname}?u=${benId}&s=${s}`,
    `${url.pathname}?u=${u}&s=`,
    `${url.pathname}?u=${u}`,
  ];
  for (const bad of tampered) {
    const res = await app.inject({ method: 'POST', url: bad, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    t.ok([404, 422].includes(res.statusCode), `refused: ${bad} → ${res.statusCode}`);
  }
  t.equal(await enabled(ANN.email), true, 'no tampered link unsubscribed');
  t.equal(await enabled(BEN.email), true, "Ann's signature does not unsubscribe Ben");

  // RFC 8058: the mail provider posts from its own servers: no cookie, maybe another Origin.
  const oneClick = await app.inject({
    method: 'POST', url: path, payload: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://mail.example.com' },
  });
  t.equal(oneClick.statusCode, 200);
  t.match(oneClick.body, 'You are unsubscribed');
  t.equal(await enabled(ANN.email), false);
  const multipart = await app.inject({
    method: 'POST', url: path, payload: '--b\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--b--\r\n',
    headers: { 'content-type': 'multipart/form-data; boundary=b' },
  });
  t.equal(multipart.statusCode, 200, 'a multipart one-click body is accepted too');
});

t.test('GET/PUT /api/dashboard/notifications and the settings checkbox', async (t) => {
  const world = await digestWorld(t, pglite, ch);
  const app = await world.build();
  const cookie = await loginCookie(app, ANN);
  const api = (method: 'GET' | 'PUT', headers: Record<string, string>, payload?: Record<string, unknown>) =>
    app.inject(payload === undefined ? { method, url: '/api/dashboard/notifications', headers } : { method, url: '/api/dashboard/notifications', headers, payload });

  t.same((await api('GET', { cookie })).json(), { success: true, data: { weekly_digest: true } }, 'on by default');
  t.same((await api('PUT', { cookie, origin: APP_URL }, { weekly_digest: false })).json(), { success: true, data: { weekly_digest: false } });
  t.same((await api('GET', { cookie })).json().data, { weekly_digest: false });
  const bad = await api('PUT', { cookie }, { weekly_digest: 'no' });
  t.equal(bad.statusCode, 422);
  t.same(Object.keys(bad.json().errors), ['weekly_digest']);
  t.equal((await api('PUT', { cookie, origin: 'https://evil.example' }, { weekly_digest: true })).statusCode, 403, 'cross-origin cookie PUT refused');
  t.equal((await api('GET', asKey)).statusCode, 401, "an account's API key has no user");
  t.equal((await api('GET', {})).statusCode, 401);

  // A brand-new user starts with the digest on.
  const created = await world.tdb.postgres.db.insert(users).values({ accountId: IDS.account, email: 'new@digest.test', passwordHash: 'x' }).returning();
  t.equal(created[0].weeklyDigest, true, 'the column default: on for new users');

  const settings = await app.inject({ method: 'GET', url: '/app/settings', headers: { cookie } });
  t.equal(settings.statusCode, 200);
  t.match(settings.body, /<input type="checkbox" name="weekly_digest" value="true" aria-describedby/, 'unchecked while off');
  const on = await app.inject({ method: 'POST', url: '/app/settings/notifications', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: APP_URL }, payload: 'weekly_digest=true' });
  t.equal(on.statusCode, 302);
  t.same((await api('GET', { cookie })).json().data, { weekly_digest: true }, 'the checkbox switched it on');
  t.match((await app.inject({ method: 'GET', url: '/app/settings', headers: { cookie } })).body, /name="weekly_digest" value="true" checked/);
  const off = await app.inject({ method: 'POST', url: '/app/settings/notifications', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: APP_URL }, payload: '' });
  t.equal(off.statusCode, 302);
  t.same((await api('GET', { cookie })).json().data, { weekly_digest: false }, 'an unchecked box switches it off');
  const evil = await app.inject({ method: 'POST', url: '/app/settings/notifications', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' }, payload: 'weekly_digest=true' });
  t.equal(evil.statusCode, 403);
});

t.test('the week and its windows', async (t) => {
  const { dueWeek, digestWindows, weekStartOf } = await import('../src/digest/schedule.js');
  t.equal(weekStartOf(new Date('2026-02-15T23:59:59Z')), '2026-02-09', 'Sunday belongs to the week of the Monday before');
  t.equal(weekStartOf(new Date('2026-02-16T00:00:00Z')), '2026-02-16');
  t.equal(dueWeek(new Date('2026-02-12T17:59:59Z'), { weekday: 4, hourUtc: 18 }), null, 'Thursday 18:00: not yet');
  t.same(dueWeek(new Date('2026-02-12T18:00:00Z'), { weekday: 4, hourUtc: 18 }), { weekStart: '2026-02-09', sendAt: new Date('2026-02-12T18:00:00Z') });
  t.same(digestWindows('2026-03-02'), { current: { from: '2026-02-23', to: '2026-03-01' }, previous: { from: '2026-02-16', to: '2026-02-22' } });
  t.equal(NOW - Date.parse('2026-02-09T07:00:00Z'), DAY + 3_600_000);
});

t.test('the insights timeframe FROM..TO: the window and refusals of from/to', async (t) => {
  const { parseInsightsTimeframe } = await import('../src/stats/window.js');
  const now = new Date(NOW);
  t.same(parseInsightsTimeframe(' 2026-02-02..2026-02-08 ', now), { ok: true, window: { from: new Date('2026-02-02T00:00:00.000Z'), to: new Date('2026-02-08T23:59:59.999Z') } });
  t.same(parseInsightsTimeframe('2026-02-09..2026-02-10', now), { ok: true, window: { from: new Date('2026-02-09T00:00:00.000Z'), to: now } }, 'cut at now');
  for (const bad of ['2026-02-08..2026-02-02', '2026-02-02..2026-02-11', '2026-02-30..2026-03-01', '2024-01-01..2026-01-01', '1899-12-31..1900-01-02']) {
    t.equal(parseInsightsTimeframe(bad, now).ok, false, bad);
  }
  const world = await digestWorld(t, pglite, ch);
  const app = await world.build();
  const get = (timeframe: string) => app.inject({ method: 'GET', url: '/api/dashboard/analytics/stats/conversation-insights', query: { chatbot_id: IDS.botA, timeframe }, headers: asKey });
  const reversed = await get('2026-02-08..2026-02-02');
  t.equal(reversed.statusCode, 422);
  t.same(reversed.json().errors, { timeframe: ['The to date must not be before the from date.'] });
  t.equal((await get('2026-02-02..2026-02-08')).statusCode, 200);
  t.equal((await get('2026-02-02...2026-02-08')).statusCode, 422, 'the pattern is exact');
});
