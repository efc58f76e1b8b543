/**
 * The app pages (/app) through HTTP on the real dashboardApp: session only (guests and keys go
 * to /login), account scoping (404 page), user text escaped, the CSP, the timeframe form's
 * errors, numbers equal to the JSON API's, and the origin rule of form posts with and without
 * APP_URL (a local start accepts the loopback address in use; an explicit APP_URL stays strict).
 */
import t from 'tap';
import Fastify from 'fastify';
import { loadConfig } from '@chatlytics/core';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng, generateConversations, generateEvents, type GeneratedConversation } from '@chatlytics/testkit';
import dashboardApp from '../src/app.js';
import { TEST_SCRYPT_COST } from '../src/auth/passwords.js';
import { importFixture } from '../src/fixtures/import.js';
import { createVisitorEventRepository } from '../src/analytics/visitor-event-repository.js';
import type { Fixture } from '../src/fixtures/schema.js';
import { insertEvents, openClickHouse, silentLog } from './stats-fixtures.js';

const NOW = Date.parse('2026-02-10T08:00:00.000Z');
const rng = createRng(1919);
const IDS = { accountA: rng.uuid(), accountB: rng.uuid(), bot: rng.uuid(), other: rng.uuid() };
const EVIL = '<script>alert(1)</script>"\'&';
const ANN = { email: 'ann@shop-a.test', password: 'ann-password' };
const KEY_A = `ck_${'p'.repeat(30)}`;

const common = { now: NOW, otherChatbotIds: [IDS.other] };
const events = generateEvents({ ...common, seed: 21, chatbotId: IDS.bot });
const convos = generateConversations({ ...common, seed: 22, chatbotId: IDS.bot, count: 40 });
const iso = (ms: number) => new Date(ms).toISOString();
/** One conversation of the bot carries its visitor's token; the events below are that visitor's. */
const TRACKED = convos.find((c) => c.chatbotId === IDS.bot && c.messages.length > 0)!;
const VISITOR = 'visitor-token-1919';
const asFixture = (list: GeneratedConversation[], chatbotId: string) => list.filter((c) => c.chatbotId === chatbotId).map((c) => ({
  id: c.id, startedAt: iso(c.startedAt), visitorToken: c.id === TRACKED.id ? VISITOR : undefined, messages: c.messages.map((m) => ({ ...m, content: `${m.content} ${EVIL}`, createdAt: iso(m.createdAt) })), analysis: c.analysis,
}));
const fixture: Fixture = {
  accounts: [
    { id: IDS.accountA, name: 'Shop A', users: [{ ...ANN, name: 'Ann' }], apiKeys: [{ name: 'ci', key: KEY_A }], chatbots: [
      { id: IDS.bot, name: EVIL, settings: { abTestEnabled: true }, conversations: asFixture(convos, IDS.bot) },
    ] },
    { id: IDS.accountB, name: 'Shop B', chatbots: [{ id: IDS.other, name: 'Other bot', conversations: asFixture(convos, IDS.other) }] },
  ],
};

const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, events);
// The tracked visitor: four events around the conversation (one retried), and rows that must not show.
const chAt = (ms: number) => iso(ms).replace('T', ' ').replace('Z', '');
const [S, LAST] = [TRACKED.startedAt, TRACKED.messages.at(-1)!.createdAt];
const visitorEvent = (n: number, at: number, fields: Partial<(typeof events)[number]>) => ({
  ...events[0], event_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, token: VISITOR, chatbot_id: IDS.bot,
  received_at: chAt(at), is_bot: false, popup_version: '', open_way: '', order_num: '', total_value_base: 0, url: 'https://shop.test/', ...fields,
});
const SHOWN = [
  visitorEvent(1, S - 2 * 3_600_000, { event: 'visitor', url: 'https://shop.test/boots?utm=x' }),
  visitorEvent(2, S - 3_600_000, { event: 'popup_displayed', popup_version: EVIL }),
  visitorEvent(3, S + 1000, { event: 'convo_started', open_way: 'popup' }),
  visitorEvent(4, LAST + 2 * 3_600_000, { event: 'purchase', order_num: 'A-1919', total_value_base: 19.9 }),
];
await insertEvents(ch.embedded, [
  ...SHOWN,
  // A retried beacon: the same event, once, with its first copy's values (a different page here to tell them apart).
  { ...SHOWN[0], received_at: chAt(S - 2 * 3_600_000 + 300_000), url: 'https://shop.test/retried' },
  visitorEvent(5, S - 1_800_000, { event: 'visitor', is_bot: true }),
  visitorEvent(6, S, { event: 'visitor', chatbot_id: IDS.other }),
  visitorEvent(7, S - 3 * 86_400_000, { event: 'visitor' }),
  visitorEvent(8, S, { event: 'visitor', token: 'another-visitor-1919' }),
]);

/** The value of `data-stat="key"` on a page. */
const statOf = (body: string, key: string) => new RegExp(`data-stat="${key}" data-value="([^"]*)"`).exec(body)?.[1];

for (const variant of databaseVariants()) {
  t.test(`app pages (${variant.name})`, { skip: variant.skip }, async (t) => {
    const tdb = await variant.open();
    t.teardown(() => tdb.destroy());
    await importFixture(tdb.postgres.db, fixture, { passwordCost: TEST_SCRYPT_COST });
    const build = async (env: Record<string, string>) => {
      const app = Fastify({ loggerInstance: silentLog, pluginTimeout: 120_000 });
      const config = loadConfig({ DATA_DIR: tdb.dataDir, SESSION_SECRET: 'x'.repeat(40), ...env });
      await app.register(dashboardApp, { config, postgres: tdb.postgres, clickhouse: ch.embedded, passwordCost: TEST_SCRYPT_COST, clock: () => new Date(NOW) });
      await app.ready();
      t.teardown(() => app.close());
      return app;
    };
    const local = await build({});
    const host = '127.0.0.1:3000';
    const login = await local.inject({
      method: 'POST', url: '/login', headers: { host, origin: `http://${host}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `email=${encodeURIComponent(ANN.email)}&password=${ANN.password}`,
    });
    t.equal(login.statusCode, 302, 'a local start: the form posted from http://127.0.0.1:3000 logs in');
    t.equal(login.headers.location, '/app', 'and lands on the app');
    const session = login.cookies.find((c) => c.name === 'chatlytics_session');
    const cookie = `chatlytics_session=${session?.value}`;
    const page = (url: string, headers: Record<string, string> = {}) => local.inject({ method: 'GET', url, headers: { cookie, accept: 'text/html', ...headers } });

    t.test('GET / and guests: to the app or the log-in form', async (t) => {
      t.equal((await local.inject({ method: 'GET', url: '/' })).headers.location, '/login');
      t.equal((await local.inject({ method: 'GET', url: '/', headers: { cookie } })).headers.location, '/app');
      for (const url of ['/app', `/app/${IDS.bot}/analytics`, `/app/${IDS.bot}/live`]) {
        const guest = await local.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
        t.equal(guest.statusCode, 302, url);
        t.equal(guest.headers.location, '/login', url);
        const key = await local.inject({ method: 'GET', url, headers: { accept: 'text/html', authorization: `Bearer ${KEY_A}` } });
        t.equal(key.headers.location, '/login', `${url}: an API key is not a session`);
        const json = await local.inject({ method: 'GET', url, headers: { accept: 'application/json' } });
        t.equal(json.statusCode, 401, `${url}: a JSON client gets the JSON 401`);
        t.same(json.json(), { success: false, message: 'Unauthenticated.' });
      }
      const icon = await local.inject({ method: 'GET', url: '/favicon.ico' });
      t.equal(icon.statusCode, 200);
      t.match(icon.headers['content-type'], /image\/svg\+xml/);
    });

    t.test('every page: escaped user text, CSP without inline scripts, numbers of the JSON API', async (t) => {
      const list = await page('/app');
      t.equal(list.statusCode, 200);
      const analytics = await page(`/app/${IDS.bot}/analytics?timeframe=30`);
      t.equal(analytics.statusCode, 200);
      const insights = await page(`/app/${IDS.bot}/insights?timeframe=month`);
      t.equal(insights.statusCode, 200);
      const link = /href="(\/app\/[0-9a-f-]+\/conversations\/[0-9a-f-]+)" data-insight-link/.exec(insights.body)?.[1];
      t.ok(link, 'the insights link to conversation pages on this address');
      const conversation = await page(link!);
      t.equal(conversation.statusCode, 200, 'the linked conversation page exists');
      t.match(conversation.body, /class="msg (user|assistant)"/);
      const live = await page(`/app/${IDS.bot}/live`);
      t.equal(live.statusCode, 200);
      for (const [name, res] of Object.entries({ list, analytics, insights, conversation, live })) {
        t.notOk(res.body.includes('<script>alert(1)'), `${name}: the chatbot name and messages are escaped`);
        const csp = String(res.headers['content-security-policy']);
        t.match(csp, /script-src 'self'/, `${name}: CSP`);
        t.notMatch(csp, /unsafe-inline/, `${name}: no inline scripts or styles`);
        t.notMatch(res.body, /<script(?![^>]*(src=|type="application\/json"))/, `${name}: every script is a file or a JSON data block`);
        t.notMatch(res.body, /\sstyle="/, `${name}: no style attributes (the CSP would drop them)`);
      }
      t.ok(conversation.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the message text is shown, escaped');

      const api = async (stat: string) => (await local.inject({
        method: 'GET', url: `/api/dashboard/analytics/stats/${stat}?chatbot_id=${IDS.bot}&timeframe=30`, headers: { authorization: `Bearer ${KEY_A}` },
      })).json();
      const bodies: Record<string, Record<string, unknown>> = {
        overview: await api('overview'), engagement: await api('engagement'), 'popup-metrics': await api('popup-metrics'), purchases: await api('purchases'), cart: await api('cart'),
      };
      const keys = [...analytics.body.matchAll(/data-stat="([^"]+)"/g)].map((m) => m[1]);
      t.ok(keys.length >= 20, `${keys.length} numbers on the analytics page`);
      for (const key of keys) {
        const [stat, ...path] = key.split('.');
        const expected = path.reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], bodies[stat]);
        t.equal(statOf(analytics.body, key), String(expected), key);
      }
      t.ok(keys.includes('purchases.ab_test.comparison.p_value'), 'the A/B block is shown');
    });

    t.test('timeframe outside 1–365: the form shows the error', async (t) => {
      for (const bad of ['0', '366', '7.5', 'abc']) {
        const res = await page(`/app/${IDS.bot}/analytics?timeframe=${bad}`);
        t.equal(res.statusCode, 422, bad);
        t.match(res.body, /id="timeframe-error" role="alert">The timeframe must be a whole number of days from 1 to 365\./, bad);
        t.match(res.body, /aria-invalid="true"/);
      }
      const insights = await page(`/app/${IDS.bot}/insights?timeframe=yesterday`);
      t.equal(insights.statusCode, 422);
      t.match(insights.body, /id="timeframe-error" role="alert">The timeframe must be/);
    });

    t.test('"24 hours" is drawn hour by hour: the timeseries API with bucket=hour, its CSV too; a longer window by hour is 422', async (t) => {
      const res = await page(`/app/${IDS.bot}/analytics?timeframe=1`);
      t.equal(res.statusCode, 200);
      t.match(res.body, /<h2 id="h-series">Hour by hour<\/h2>/);
      t.match(res.body, /data-bucket="hour"/);
      const series = JSON.parse(/id="timeseries-data">([^<]*)<\/script>/.exec(res.body)![1]) as { hour: string; visitors: number }[];
      const api = await local.inject({
        method: 'GET', url: `/api/dashboard/analytics/stats/timeseries?chatbot_id=${IDS.bot}&timeframe=1&bucket=hour`, headers: { authorization: `Bearer ${KEY_A}` },
      });
      t.equal(api.statusCode, 200);
      const body = api.json() as { bucket: string; days: unknown[]; hours: { hour: string; visitors: number }[] };
      t.same([body.bucket, body.days], ['hour', []]);
      t.ok(body.hours.length >= 24 && body.hours.length <= 25, `${body.hours.length} hours`);
      t.same(series.map((h) => [h.hour, h.visitors]), body.hours.map((h) => [h.hour, h.visitors]), 'the chart draws the API\'s hours');
      t.match(body.hours[0].hour, /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:00:00Z$/);
      t.match(res.body, /stats\/timeseries\?[^"]*bucket=hour[^"]*format=csv/, 'the CSV link asks for the hours');
      const week = await page(`/app/${IDS.bot}/analytics?timeframe=7`);
      t.match(week.body, /<h2 id="h-series">Day by day<\/h2>/, 'seven days stay by day');
      const tooLong = await local.inject({
        method: 'GET', url: `/api/dashboard/analytics/stats/timeseries?chatbot_id=${IDS.bot}&timeframe=30&bucket=hour`, headers: { authorization: `Bearer ${KEY_A}` },
      });
      t.equal(tooLong.statusCode, 422);
      t.ok(tooLong.json().error?.errors?.bucket ?? tooLong.json().errors?.bucket, JSON.stringify(tooLong.json()));
    });

    t.test('a custom date range: the JSON API\'s numbers for the same days; a bad range is the form with its message', async (t) => {
      const [from, to] = ['2026-01-12', '2026-02-02'];
      const res = await page(`/app/${IDS.bot}/analytics?from=${from}&to=${to}`);
      t.equal(res.statusCode, 200);
      t.match(res.body, `${from} to ${to} (UTC), 22 days`);
      t.match(res.body, `id="from" name="from" type="date" min="1900-01-01" max="2026-02-10" value="${from}"`, 'the range stays in the form');
      const series = JSON.parse(/id="timeseries-data">([^<]*)<\/script>/.exec(res.body)![1]) as { date: string }[];
      t.same([series.length, series[0].date, series.at(-1)!.date], [22, from, to], 'the chart has the range\'s days');
      const api = async (stat: string) => (await local.inject({
        method: 'GET', url: `/api/dashboard/analytics/stats/${stat}?chatbot_id=${IDS.bot}&from=${from}&to=${to}`, headers: { authorization: `Bearer ${KEY_A}` },
      })).json();
      const bodies: Record<string, Record<string, unknown>> = {
        overview: await api('overview'), engagement: await api('engagement'), 'popup-metrics': await api('popup-metrics'), purchases: await api('purchases'), cart: await api('cart'),
      };
      t.same([bodies.overview.start_date, bodies.overview.end_date, bodies.overview.timeframe_days], [from, to, 22], 'the API reads the same range');
      const keys = [...res.body.matchAll(/data-stat="([^"]+)"/g)].map((m) => m[1]);
      t.ok(keys.length >= 20, `${keys.length} numbers on the page`);
      for (const key of keys) {
        const [stat, ...path] = key.split('.');
        t.equal(statOf(res.body, key), String(path.reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], bodies[stat])), key);
      }

      const bad: [string, string, RegExp][] = [
        ['2026-02-02', '2026-01-12', /id="to-error" role="alert">The to date must not be before the from date\./],
        ['2025-01-01', '2026-02-01', /id="to-error" role="alert">The date range must not be longer than 366 days\./],
        ['2026-13-01', '2026-01-02', /id="from-error" role="alert">The from date must be a date such as 2026-01-31\./],
        ['', '2026-01-02', /id="from-error" role="alert">The from date is required for a date range\./],
        ['2026-01-01', '2026-02-11', /id="to-error" role="alert">The to date must not be after today \(UTC\)\./],
        [EVIL, '2026-01-02', /id="from-error" role="alert">The from date must be a date/],
      ];
      for (const [f, to2, message] of bad) {
        const r = await page(`/app/${IDS.bot}/analytics?from=${encodeURIComponent(f)}&to=${to2}`);
        t.equal(r.statusCode, 422, `${f}..${to2}`);
        t.match(r.body, message, `${f}..${to2}`);
        t.match(r.body, /type="date"[^>]* aria-invalid="true"/, `${f}..${to2}: the field is marked`);
        t.notMatch(r.body, /data-stat=/, 'no numbers for a refused range');
      }
      t.notOk((await page(`/app/${IDS.bot}/analytics?from=${encodeURIComponent(EVIL)}&to=x`)).body.includes('<script>alert(1)'), 'the typed value is escaped');
      const both = await page(`/app/${IDS.bot}/analytics?timeframe=7&from=${from}&to=${to}`);
      t.equal(both.statusCode, 422);
      t.match(both.body, /role="alert">Choose either a number of days or a date range, not both\./);
    });

    t.test("the conversation page lists its visitor's events: that token, this chatbot, around the chat, no bots", async (t) => {
      const res = await page(`/app/${IDS.bot}/conversations/${TRACKED.id}`);
      t.equal(res.statusCode, 200);
      t.match(res.body, `Visitor token <code>${VISITOR}</code>`);
      const ids = [...res.body.matchAll(/data-event-id="([^"]+)"/g)].map((m) => m[1]);
      t.same(ids, SHOWN.map((e) => e.event_id), 'its four events, oldest first, the retried one once; not the bot\'s, another chatbot\'s, an old one or another token\'s');
      t.match(res.body, `<time datetime="${iso(S - 2 * 3_600_000)}">`, 'a retried event at its earliest copy');
      t.match(res.body, '>/boots</td>', 'the page path, of the first copy');
      t.notOk(res.body.includes('/retried'), 'not the retried copy\'s');
      t.match(res.body, /order A-1919 · €19\.90/);
      t.notOk(res.body.includes('<script>alert(1)'), 'the popup version is escaped');
      for (const engine of [ch.embedded, ch.server]) {
        const read = await createVisitorEventRepository(engine).aroundConversation({ chatbotId: IDS.bot, visitorToken: VISITOR, from: new Date(S), to: new Date(LAST) });
        t.same(read.events.map((e) => [e.eventId, e.event, e.at.getTime(), e.valueEur]), SHOWN.map((e) => [e.event_id, e.event, Date.parse(`${e.received_at.replace(' ', 'T')}Z`), e.total_value_base]),
          `${engine.kind}: the repository's rows, values of the earliest copy`);
      }
      const other = convos.find((c) => c.chatbotId === IDS.bot && c.id !== TRACKED.id)!;
      const without = await page(`/app/${IDS.bot}/conversations/${other.id}`);
      t.equal(without.statusCode, 200);
      t.match(without.body, 'stored without the visitor\'s tracker token');
      t.notMatch(without.body, /data-event-id=/);
    });

    t.test("another account's, unknown and malformed ids: the 404 page", async (t) => {
      const foreignConversation = convos.find((c) => c.chatbotId === IDS.other)!.id;
      const ownConversation = convos.find((c) => c.chatbotId === IDS.bot)!.id;
      for (const url of [
        `/app/${IDS.other}/analytics`, `/app/${rng.uuid()}/insights`, '/app/not-a-uuid/live',
        `/app/${IDS.other}/conversations/${foreignConversation}`, `/app/${IDS.bot}/conversations/${foreignConversation}`,
        `/app/${IDS.other}/conversations/${ownConversation}`, `/app/go?chatbot_id=${IDS.other}`,
      ]) {
        const res = await page(url);
        t.equal(res.statusCode, 404, url);
        t.match(res.headers['content-type'], /text\/html/, url);
        t.match(res.body, /<h1>Not found\.<\/h1>/, url);
        t.notOk(res.body.includes('Other bot'), `${url}: nothing of the other account`);
      }
      const unknown = await page('/app/nope');
      t.equal(unknown.statusCode, 404);
      t.match(unknown.body, /<h1>Not found\.<\/h1>/, 'an unknown /app path: the 404 page for a browser');
    });

    t.test('origin rule: cross-origin form posts are refused with a page, on a local start and with APP_URL', async (t) => {
      const post = (app: typeof local, headers: Record<string, string>) =>
        app.inject({ method: 'POST', url: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: `email=${encodeURIComponent(ANN.email)}&password=${ANN.password}` });
      for (const [h, origin] of [['127.0.0.1:3000', 'http://evil.test'], ['127.0.0.1:3000', 'http://localhost:3000'], ['evil.test:3000', 'http://evil.test:3000'], ['localhost:3000', 'http://127.0.0.1:3000']]) {
        const res = await post(local, { host: h, origin });
        t.equal(res.statusCode, 403, `local start: Host ${h}, Origin ${origin}`);
        t.match(res.headers['content-type'], /text\/html/, 'a browser gets a page');
        t.match(res.body, /<h1>Forbidden\.<\/h1>/);
      }
      t.equal((await post(local, { host: 'localhost:3000', origin: 'http://localhost:3000' })).statusCode, 302, 'localhost works too');
      const json = await local.inject({ method: 'POST', url: '/login', headers: { host: '127.0.0.1:3000', origin: 'http://evil.test', accept: 'application/json' }, payload: ANN });
      t.same([json.statusCode, json.json()], [403, { success: false, message: 'Forbidden.' }], 'a JSON client gets the JSON body');

      const strict = await build({ APP_URL: 'https://dash.example.test' });
      t.equal((await post(strict, { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' })).statusCode, 403, 'APP_URL set: a loopback origin is another origin');
      t.equal((await post(strict, { host: 'dash.example.test', origin: 'https://dash.example.test' })).statusCode, 302, "APP_URL's own origin logs in");
      const logout = await strict.inject({ method: 'POST', url: '/logout', headers: { host: 'localhost:3000', origin: 'http://localhost:3000', cookie } });
      t.equal(logout.statusCode, 403, 'APP_URL set: a cookie POST from localhost is refused');
    });
  });
}
