/**
 * A chatbot's display currency on the app pages and in the weekly digest (issue 58): each shown
 * amount is the API's EUR figure divided by the currency's rate in the ingest's table, the page
 * says so once, the API stays in EUR, and the account's totals never add kronor to euros.
 */
import t from 'tap';
import { EUR_RATES } from '@chatlytics/events';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { ANN, APP_URL, IDS, KEY, digestWorld, loginCookie, openDigestClickHouse } from './digest-harness.js';
import { createStatsService } from '../src/stats/run.js';
import { createChatbotRepository } from '../src/repositories/chatbot-repository.js';
import { createDigestContent } from '../src/digest/content.js';
import { renderDigest } from '../src/digest/render.js';

const ch = await openDigestClickHouse(t);
const pglite = databaseVariants().find((v) => v.name === 'pglite')!;
const SEK = EUR_RATES.SEK;

/** "kr 1,234.56" → 1234.56: the number a shown amount says, whatever its symbol. */
const amount = (shown: string) => Number(shown.replace(/[^0-9.-]/g, ''));
const cents = (v: number) => Math.round(v * 100) / 100;

/** The shown text and the `data-value` (EUR) of the figure keyed `stat` on a page. */
function figure(body: string, attr: string, key: string): { eur: number; shown: string } {
  const m = new RegExp(`${attr}="${key.replace(/\./g, '\\.')}" data-value="([^"]*)">([^<]*)<`).exec(body);
  if (!m) throw new Error(`no ${key} on the page`);
  return { eur: Number(m[1]), shown: m[2]! };
}

t.test('pages and digest in SEK', async (t) => {
  const world = await digestWorld(t, pglite, ch);
  const app = await world.build({ alerts: { evaluateIntervalMs: 0 } });
  const cookie = await loginCookie(app, ANN);
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { cookie, accept: 'text/html' } });
  const api = (method: 'GET' | 'PATCH', url: string, payload?: object) =>
    app.inject({ method, url: `/api/dashboard${url}`, headers: { authorization: `Bearer ${KEY}` }, payload });
  t.equal((await api('PATCH', `/chatbots/${IDS.botA}`, { displayCurrency: 'SEK' })).statusCode, 200);

  t.test('the analytics page shows the API\'s EUR figures in kronor, said once', async (t) => {
    const page = await get(`/app/${IDS.botA}/analytics?timeframe=7`);
    t.equal(page.statusCode, 200);
    const p = (await api('GET', `/analytics/stats/purchases?chatbot_id=${IDS.botA}&timeframe=7`)).json();
    const revenue = figure(page.body, 'data-stat', 'purchases.total_revenue_purchased');
    t.equal(revenue.eur, p.total_revenue_purchased, 'data-value stays the API\'s EUR');
    t.ok(p.total_revenue_purchased > 0, 'the fixture has revenue in the window');
    t.match(revenue.shown, /^kr\u00a0/);
    t.equal(amount(revenue.shown), cents(p.total_revenue_purchased / SEK), 'kronor = EUR / rate');
    const aov = figure(page.body, 'data-stat', 'purchases.aov_with_chat');
    t.equal(amount(aov.shown), cents(p.aov_with_chat / SEK));
    const headline = /data-metric="revenue_after_chat" data-value="([^"]*)">\s*<dt>[^<]*<\/dt>\s*<dd class="value">([^<]*)</.exec(page.body);
    t.ok(headline, 'the headline row');
    t.equal(amount(headline![2]!), cents(Number(headline![1]) / SEK), 'the headline in kronor too');
    t.equal(page.body.match(/converted from EUR at fixed rates/g)?.length, 1, 'the conversion said once');
    t.notMatch(page.body.replace(/EUR at fixed rates|= [0-9.]+ EUR/g, ''), /€/, 'no amount left in euros');
    const chart = JSON.parse(/id="timeseries-data"[^>]*>([^<]*)</.exec(page.body)![1]!) as { revenue: number }[];
    const ts = (await api('GET', `/analytics/stats/timeseries?chatbot_id=${IDS.botA}&timeframe=7`)).json();
    t.same(chart.map((d) => d.revenue), ts.days.map((d: { revenue: number }) => cents(d.revenue / SEK)), 'the chart draws kronor');
    t.match(page.body, /data-series="timeseries" data-bucket="day" data-currency="SEK"/);
  });

  // The fixture's conversations lead to no purchase: the amount here is 0, so only its currency is checked.
  t.test('the insights page writes its money in kronor', async (t) => {
    const page = await get(`/app/${IDS.botA}/insights`);
    t.equal(page.statusCode, 200);
    const m = /data-missing-total="([^"]*)">What the assistant did not know cost you <strong>([^<]*)</.exec(page.body);
    t.ok(m);
    t.equal(amount(m![2]!), cents(Number(m![1]) / SEK));
    t.match(m![2]!, /^kr/);
    t.match(page.body, /data-currency-note>Amounts in SEK, converted from EUR at fixed rates/);
  });

  t.test('the list: each chatbot in its currency, the totals in EUR when they differ', async (t) => {
    const page = await get('/app');
    const row = (marker: string) => {
      const r = page.body.slice(page.body.indexOf(marker));
      return /data-stat="chatbots.revenue_after_chat" data-value="([^"]*)"[^>]*><span class="figure">([^<]*) </.exec(r.slice(0, r.indexOf('</tr>')))!;
    };
    const a = row(`data-chatbot="${IDS.botA}"`);
    t.match(a[2], /^kr/);
    t.equal(amount(a[2]!), cents(Number(a[1]) / SEK));
    t.match(row(`data-chatbot="${IDS.botB}"`)[2], /^€/);
    const totals = row('data-totals');
    t.match(totals[2], /^€/, 'the totals in EUR');
    t.equal(amount(totals[2]!), cents(Number(totals[1])));
    t.match(page.body, /All chatbots \(2\) <span class="hint">in EUR<\/span>/);
    t.match(page.body, /the totals are in EUR, as amounts in different currencies do not add up/);
    t.equal((await api('PATCH', `/chatbots/${IDS.botB}`, { displayCurrency: 'SEK' })).statusCode, 200);
    const same = await get('/app');
    t.match(same.body, /data-totals data-currency="SEK"/, 'one currency: the totals in it');
    await api('PATCH', `/chatbots/${IDS.botB}`, { displayCurrency: 'EUR' });
  });

  t.test('the settings form offers the table\'s currencies and saves one; an unknown code is refused', async (t) => {
    const page = await get(`/app/${IDS.botA}/tracking`);
    t.match(page.body, /<option value="SEK" selected>SEK<\/option>/);
    t.equal(page.body.match(/<option value="[A-Z]{3}"/g)?.length, Object.keys(EUR_RATES).length);
    const post = (body: string) => app.inject({
      method: 'POST', url: `/app/${IDS.botA}/tracking/revenue`, payload: body,
      headers: { cookie, origin: APP_URL, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    });
    const bad = await post('revenueSource=tracker&attributionWindowDays=7&displayCurrency=XYZ');
    t.equal(bad.statusCode, 422);
    t.match(bad.body, /id="displayCurrency"[^>]*aria-invalid="true"/);
    t.equal((await api('GET', `/chatbots/${IDS.botA}`)).json().data.chatbot.displayCurrency, 'SEK');
    t.equal((await post('revenueSource=tracker&attributionWindowDays=7&displayCurrency=NOK')).statusCode, 302);
    t.equal((await api('GET', `/chatbots/${IDS.botA}`)).json().data.chatbot.displayCurrency, 'NOK');
    t.equal((await post('revenueSource=tracker&attributionWindowDays=7')).statusCode, 302);
    t.equal((await api('GET', `/chatbots/${IDS.botA}`)).json().data.chatbot.displayCurrency, 'NOK', 'a form without the field keeps it');
    await api('PATCH', `/chatbots/${IDS.botA}`, { displayCurrency: 'SEK' });
  });

  t.test('the weekly digest writes the chatbot\'s revenue in its currency', async (t) => {
    const stats = createStatsService({ clickhouse: ch, db: world.tdb.postgres.db, appUrl: APP_URL, clock: () => new Date(world.clock.now), cacheTtlMs: 0 });
    const content = await createDigestContent({ stats, chatbots: createChatbotRepository({ db: world.tdb.postgres.db }) })(IDS.account, '2026-02-10');
    const botA = content.chatbots.find((b) => b.id === IDS.botA)!;
    t.equal(botA.currency, 'SEK');
    t.ok(botA.revenueAfterChat.current > 0, 'the fixture has revenue after chat in the week');
    const mail = await renderDigest({ content, appUrl: APP_URL, unsubscribeUrl: `${APP_URL}/unsubscribe` });
    const line = /Revenue after chat: (kr\u00a0[0-9.,]+) \(previous 7 days: (kr\u00a0[0-9.,]+);/.exec(mail.text);
    t.ok(line, 'the text part in kronor');
    t.equal(amount(line![1]!), cents(botA.revenueAfterChat.current / SEK));
    t.equal(amount(line![2]!), cents(botA.revenueAfterChat.previous / SEK));
    t.ok(mail.text.includes('Amounts in SEK, converted from EUR at fixed rates'));
    t.ok(mail.html.includes(line![1]!), 'the HTML part shows the same amount');
    t.ok(mail.html.includes('converted from EUR at fixed rates'));
    t.match(mail.text, /== Second bot ==[\s\S]*Revenue after chat: €/, 'the EUR chatbot stays in euros');
  });
});
