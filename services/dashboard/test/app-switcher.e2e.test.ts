/**
 * The header on every chatbot page (issue 58): the switcher shows the page's chatbot and keeps
 * its view (on analytics also the window and filter) when switching, and the Setup tab (the tag and the tracking settings) is reachable
 * from each; account pages name no chatbot.
 */
import t from 'tap';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { ANN, IDS, digestWorld, loginCookie, openDigestClickHouse } from './digest-harness.js';

const ch = await openDigestClickHouse(t);
const pglite = databaseVariants().find((v) => v.name === 'pglite')!;

/** The switcher's selected chatbot id, its hidden view, and the tab links of a page. */
function header(body: string) {
  const select = /<select id="switch-chatbot"[^>]*>([\s\S]*?)<\/select>/.exec(body)?.[1] ?? '';
  const selected = [...select.matchAll(/<option value="([^"]*)"([^>]*)>/g)].filter((m) => / selected/.test(m[2])).map((m) => m[1]);
  const view = /<input type="hidden" name="view" value="([^"]+)">/.exec(body)?.[1];
  const tabs = /<nav class="tabs" aria-label="Views">([\s\S]*?)<\/nav>/.exec(body)?.[1] ?? '';
  const current = /<a href="([^"]+)" aria-current="page">/.exec(tabs)?.[1];
  return { selected, view, tabs: [...tabs.matchAll(/href="([^"]+)"/g)].map((m) => m[1]), current };
}

t.test('the switcher and the Setup tab on every chatbot page', async (t) => {
  const world = await digestWorld(t, pglite, ch);
  const app = await world.build({ alerts: { evaluateIntervalMs: 0 } });
  const cookie = await loginCookie(app, ANN);
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie } });
  const bot = IDS.botA;
  const insights = await get(`/app/${bot}/insights?timeframe=month`);
  const conversation = /href="(\/app\/[0-9a-f-]+\/conversations\/[0-9a-f-]+)"/.exec(insights.body)?.[1];
  t.ok(conversation, 'a conversation link on the insights page');
  const pages: [string, string][] = [
    [`/app/${bot}/analytics`, 'analytics'], [`/app/${bot}/insights`, 'insights'], [conversation!, 'insights'], [`/app/${bot}/live`, 'live'],
    [`/app/${bot}/alerts`, 'alerts'], [`/app/${bot}/setup`, 'setup'], [`/app/${bot}/tracking`, 'setup'],
  ];
  for (const [url, view] of pages) {
    const res = await get(url);
    t.equal(res.statusCode, 200, url);
    const h = header(res.body);
    t.same(h.selected, [bot], `${url}: the switcher shows this chatbot`);
    t.equal(h.view, view, `${url}: switching keeps the ${view} view`);
    t.ok(h.tabs.includes(`/app/${bot}/setup`), `${url}: the Setup tab`);
    t.equal(h.current?.split('?')[0], `/app/${bot}/${view}`, `${url}: its tab is the current one`);
  }
  // The Setup tab holds both: the tag with its copy button, and a link to the tracking settings (and back).
  const setup = (await get(`/app/${bot}/setup`)).body;
  t.match(setup, /<textarea id="snippet"/);
  t.match(setup, /data-copy="snippet"/);
  t.match(setup, new RegExp(`href="/app/${bot}/tracking"`));
  t.match((await get(`/app/${bot}/tracking`)).body, new RegExp(`href="/app/${bot}/setup"`));

  // Switching keeps the view: /app/go with the other chatbot and the hidden view.
  for (const view of ['setup', 'alerts', 'live']) {
    const go = await get(`/app/go?chatbot_id=${IDS.botB}&view=${view}`);
    t.equal(go.statusCode, 302);
    t.equal(go.headers.location, `/app/${IDS.botB}/${view}`);
  }
  t.equal((await get(`/app/go?chatbot_id=${IDS.botOther}&view=setup`)).statusCode, 404, "another account's chatbot");

  // On analytics the switcher keeps the window and the filter too.
  const filtered = (await get(`/app/${bot}/analytics?timeframe=30&device=mobile&compare=none`)).body;
  const form = /<form class="switcher"[\s\S]*?<\/form>/.exec(filtered)?.[0] ?? '';
  for (const [k, v] of [['timeframe', '30'], ['compare', 'none'], ['device', 'mobile']]) {
    t.match(form, `<input type="hidden" name="${k}" value="${v}">`, `the switcher keeps ${k}`);
  }
  const go = await get(`/app/go?chatbot_id=${IDS.botB}&view=analytics&timeframe=30&compare=none&device=mobile`);
  t.equal(go.headers.location, `/app/${IDS.botB}/analytics?timeframe=30&compare=none&device=mobile`, 'the next chatbot opens on the same window and filter');
  t.equal((await get(`/app/go?chatbot_id=${IDS.botB}&view=live&timeframe=30`)).headers.location, `/app/${IDS.botB}/live`, 'other views take no window');
  t.equal((await get(`/app/go?chatbot_id=${IDS.botB}&view=insights&timeframe=30&device=mobile`)).headers.location, `/app/${IDS.botB}/insights?timeframe=30+days`,
    'insights: the same window in its words, no filter');

  // One window across the tabs: analytics' window reaches insights in its words, and back.
  const tabsOf = (body: string) => Object.fromEntries(header(body).tabs.map((a) => a.replace(/&amp;/g, '&')).map((href) => [href.split('?')[0].split('/').pop(), href]));
  const fromAnalytics = tabsOf(filtered);
  t.equal(fromAnalytics.insights, `/app/${bot}/insights?timeframe=30+days`, 'analytics, 30 days → the insights tab shows 30 days');
  t.equal(fromAnalytics.analytics, `/app/${bot}/analytics?timeframe=30&compare=none&device=mobile`, 'the analytics tab keeps the window, the comparison and the filter');
  t.equal(fromAnalytics.live, `/app/${bot}/live`);
  // A range inside the page's own window (the world's clock decides which dates are allowed).
  const [, first, last] = /([0-9]{4}-[0-9]{2}-[0-9]{2}) to ([0-9]{4}-[0-9]{2}-[0-9]{2})/.exec(filtered) ?? [];
  const ranged = tabsOf((await get(`/app/${bot}/analytics?from=${first}&to=${last}`)).body);
  t.equal(ranged.insights, `/app/${bot}/insights?timeframe=${first}..${last}`, 'a date range too');
  const insightsPage = (await get(`/app/${bot}/insights?timeframe=90+days`)).body;
  t.equal(tabsOf(insightsPage).analytics, `/app/${bot}/analytics?timeframe=90`, 'insights, 90 days → the analytics tab shows 90 days');
  t.match(/<form class="switcher"[\s\S]*?<\/form>/.exec(insightsPage)?.[0] ?? '', '<input type="hidden" name="timeframe" value="90">', 'and the switcher keeps it');
  t.match(insightsPage, /<a href="[^"]*timeframe=90%20days" aria-current="true">90 days<\/a>/, 'its quick pick is the current one');

  // Account pages name no chatbot: the switcher asks for one.
  for (const url of ['/app', '/app/settings', '/app/chatbots/new', '/app/data-sources']) {
    const res = await get(url);
    t.equal(res.statusCode, 200, url);
    t.same(header(res.body).selected, [''], `${url}: no chatbot selected, "Choose a chatbot"`);
  }
});
