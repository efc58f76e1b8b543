/**
 * Bot filtering end to end from the ingest's normalisation: crawler events classified by their
 * User-Agent (normalizeEvent → is_bot), stored in ClickHouse, change no statistic. Chatbot
 * `clean` holds visitors' events; chatbot `crawled` holds the same events plus crawler events
 * of every kind a statistic reads (visits, popups, chats, reactions, A/B, purchases, one
 * claiming an order number before the visitor's purchase of it). Every statistic of the two
 * must be equal, on the embedded engine and the server client (through the HTTP bridge); and
 * with the flag cleared the same rows must change them, so the comparison can fail.
 */
import t from 'tap';
import { normalizeEvent, validateTrackingBody, type StoredEvent } from '@chatlytics/events';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng, generateEvents } from '@chatlytics/testkit';
import { createStatsRepository } from '../src/stats/readers.js';
import { daysWindow } from '../src/stats/window.js';
import { insertEvents, openClickHouse, seedPostgres } from './stats-fixtures.js';

const NOW = Date.parse('2026-05-20T12:00:00.000Z');
const HOUR = 3_600_000;
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const rng = createRng(1818);
const accountId = rng.uuid();
const clean = { id: rng.uuid(), accountId, abTestEnabled: true };
const crawled = { id: rng.uuid(), accountId, abTestEnabled: true };
const flagCleared = { id: rng.uuid(), accountId, abTestEnabled: true };

/** One event as the ingest stores it: validated, then normalised with this User-Agent header. */
function ingested(userAgent: string, at: number, body: { event: string; token: string; ab_test?: boolean; data?: Record<string, unknown> }): StoredEvent {
  const v = validateTrackingBody({ ab_test: true, ...body });
  if (!v.ok) throw new Error(`fixture invalid: ${JSON.stringify(v.errors)}`);
  return normalizeEvent(v.value, { receivedAt: new Date(at), userAgentHeader: userAgent, log: { warn: () => undefined } });
}

const visitors = generateEvents({ seed: 18, now: NOW, chatbotId: clean.id, otherChatbotIds: [], spanDays: 10 })
  .filter((e) => !e.is_bot && e.chatbot_id === clean.id);
const order = visitors.find((e) => e.event === 'purchase' && e.order_num !== '' && Date.parse(`${e.received_at.replace(' ', 'T')}Z`) > NOW - 6 * 24 * HOUR);
if (!order) throw new Error('the generated data has no order in the window');
const orderAt = Date.parse(`${order.received_at.replace(' ', 'T')}Z`);

// Crawler tokens end in 0 and 1 (both A/B groups); one crawler also reuses a visitor's token.
const crawlerEvents = ['crawler-token-0', 'crawler-token-1', visitors[0].token].flatMap((token, k) => {
  const at = NOW - (k + 1) * 5 * HOUR;
  const ev = (event: string, dt: number, data: Record<string, unknown> = {}) => ingested(GOOGLEBOT, at + dt, { event, token, data: { chatbot_id: crawled.id, ...data } });
  return [
    ev('visitor', 0), ev('popup_displayed', 1, { popup_version: 'v1' }), ev('popup_opened', 2, { popup_version: 'v1' }),
    ev('bot_open', 3), ev('convo_started', 4, { open_way: 'popup' }), ev('click_through', 5), ev('message_like', 6), ev('message_dislike', 7),
    ev('purchase', 8, { orderNum: `CRAWL-${k}`, items: [{ item_id: 'sku', value: 50, currency: 'EUR' }] }),
  ];
});
// A crawler "buys" the visitor's order number first: the order must still count for the visitor.
crawlerEvents.push(ingested(GOOGLEBOT, orderAt - HOUR, {
  event: 'purchase', token: 'crawler-token-0', data: { chatbot_id: crawled.id, orderNum: order.order_num, items: [{ item_id: 'sku', value: 9, currency: 'EUR' }] },
}));

/** The rows under another chatbot, each event_id replaced consistently (retried copies stay copies). */
function copyTo(chatbotId: string, rows: readonly StoredEvent[]): StoredEvent[] {
  const ids = new Map<string, string>();
  return rows.map((e) => ({ ...e, chatbot_id: chatbotId, event_id: ids.get(e.event_id) ?? ids.set(e.event_id, rng.uuid()).get(e.event_id)! }));
}
const rows = [
  ...visitors,
  ...copyTo(crawled.id, visitors), ...crawlerEvents,
  ...copyTo(flagCleared.id, visitors), ...copyTo(flagCleared.id, crawlerEvents).map((e) => ({ ...e, is_bot: false })),
];

// Every store is opened before the first subtest: tap's root test must not end in between.
const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, rows);
const [variant] = databaseVariants();
const pg = await variant.open();
t.teardown(() => pg.destroy());
await seedPostgres(pg.postgres.db, [clean, crawled, flagCleared], []);

t.test('the ingest classifies by User-Agent', async (t) => {
  t.ok(crawlerEvents.every((e) => e.is_bot === true && e.user_agent === GOOGLEBOT), 'every crawler event is_bot');
  const browser = ingested(CHROME, NOW, { event: 'visitor', token: 'browser-token-0', data: { chatbot_id: crawled.id } });
  t.equal(browser.is_bot, false, 'a normal browser is not flagged');
});

t.test('stored with is_bot, visible to SQL (embedded, and over the /clickhouse HTTP interface)', async (t) => {
  for (const engine of [ch.embedded, ch.server]) {
    const counts = await engine.query<{ is_bot: boolean; n: string }>(
      'SELECT is_bot, count() AS n FROM events WHERE chatbot_id = {id:String} GROUP BY is_bot ORDER BY is_bot', { id: crawled.id });
    t.same(counts, [{ is_bot: false, n: String(visitors.length) }, { is_bot: true, n: String(crawlerEvents.length) }]);
  }
});

for (const [name, engine] of [['embedded', ch.embedded], ['server via HTTP bridge', ch.server]] as const) {
  t.test(`ClickHouse ${name}: crawler rows change no statistic`, async (t) => {
    const repo = createStatsRepository({ clickhouse: engine, db: pg.postgres.db, appUrl: 'https://app.example.test' });
    const w = daysWindow(7, new Date(NOW));
    const all = async (bot: typeof clean) => ({
      engagement: await repo.engagement(bot.id, w),
      popupMetrics: await repo.popupMetrics(bot.id, w),
      purchases: await repo.purchases(bot, w),
      insights: await repo.conversationInsights(bot.id, w),
    });
    const expected = await all(clean);
    const got = await all(crawled);
    const unfiltered = await all(flagCleared);
    for (const stat of Object.keys(expected) as (keyof typeof expected)[]) {
      t.same(got[stat], expected[stat], `${stat}: as if the crawlers never came`);
      t.not(JSON.stringify(unfiltered[stat]), JSON.stringify(expected[stat]), `${stat}: the same rows unflagged would count`);
    }
    t.ok((expected.purchases as { ab_test?: unknown }).ab_test, 'the A/B block is compared too');
  });
}
