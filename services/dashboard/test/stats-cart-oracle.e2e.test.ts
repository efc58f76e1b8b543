/**
 * Property test of "cart" and "topics" (services/dashboard/docs/statistics.md): for several seeds and
 * windows, the repository's answer on the real engines equals the oracle (stats-cart-oracle.ts)
 * over the same generated data. ClickHouse: the embedded engine AND the server client through the
 * HTTP bridge; PostgreSQL: PGlite, and a server when DATABASE_URL is set.
 */
import t from 'tap';
import type { StoredEvent } from '@chatlytics/events';
import { databaseVariants } from '@chatlytics/postgres/testing';
import { createRng, generateEvents } from '@chatlytics/testkit';
import { createStatsRepository } from '../src/stats/readers.js';
import { createCartStatsRepository } from '../src/stats/readers.js';
import { daysWindow } from '../src/stats/window.js';
import { TOPIC_DIMENSIONS } from '../src/stats/topics-report.js';
import { insertEvents, openClickHouse, seedPostgres, type SeedChatbot } from './stats-fixtures.js';
import { cartEvents, tokenConversations, type TokenConversation } from './cart-scenario.js';
import { DIMENSION_LISTS, oracleCart, oracleTopics } from './stats-cart-oracle.js';

const SEED_COUNT = Number(process.env.STATS_SEEDS ?? 5);
const SERVER_SEEDS = 2;
const NOW = Date.parse('2026-05-20T12:34:56.789Z');
const TIMEFRAMES = [1, 7, 30];
const APP_URL = 'https://app.example.test';

interface Scenario { seed: number; bot: SeedChatbot; other: SeedChatbot; events: StoredEvent[]; convos: TokenConversation[] }

function scenario(seed: number): Scenario {
  const rng = createRng(seed * 104_729);
  const accountId = rng.uuid();
  const bot = { id: rng.uuid(), accountId, abTestEnabled: false };
  const other = { id: rng.uuid(), accountId: rng.uuid(), abTestEnabled: false };
  const cart = cartEvents({ seed, now: NOW, chatbotId: bot.id, otherChatbotId: other.id });
  const events = [...generateEvents({ seed, now: NOW, chatbotId: bot.id, otherChatbotIds: [other.id], boundaryDays: TIMEFRAMES }), ...cart.events];
  return { seed, bot, other, events, convos: tokenConversations({ seed, now: NOW, chatbotId: bot.id, otherChatbotId: other.id, tokens: cart.tokens }) };
}

const scenarios = Array.from({ length: SEED_COUNT }, (_, i) => scenario(1 + i));
const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, scenarios.flatMap((s) => s.events));

t.test('the generated data exercises every rule', async (t) => {
  const w = daysWindow(30, new Date(NOW));
  const carts = scenarios.map((s) => oracleCart(s.events, s.bot.id, w.from.getTime(), w.to.getTime()));
  t.ok(carts.every((c) => c.users_abandoned > 0 && c.users_added_and_purchased > 0), 'abandoned and bought carts');
  t.ok(carts.every((c) => c.chatted.users_added_to_cart > 0 && c.not_chatted.users_added_to_cart > 0), 'carts on both halves');
  const all = scenarios.flatMap((s) => s.events);
  t.ok(all.some((e) => e.event === 'added_to_cart' && e.items.some((i) => i.currency === 'XYZ') && e.items.some((i) => i.currency !== 'XYZ')), 'a cart with an unknown currency beside known ones');
  t.ok(all.some((e) => e.event === 'added_to_cart' && e.is_bot), 'bot carts');
  const topics = scenarios.map((s) => oracleTopics(s.convos, s.events, s.bot.id, w.from.getTime(), w.to.getTime(), 'product', APP_URL));
  t.ok(topics.every((r) => r.totals.purchasers > 0 && r.totals.purchasers < r.totals.visitors), 'topics: buyers and non-buyers');
  t.ok(topics.some((r) => r.items.some((i) => i.abandoned_value > 0)), 'topics: abandoned carts');
  t.ok(topics.some((r) => r.items.some((i) => i.conversations > 5)), 'topics: more conversations than links');
  // A purchase before the conversation must not count: somewhere it would change the revenue.
  const early = scenarios.some((s) => s.convos.some((c) => c.visitorToken && s.events.some((e) => e.event === 'purchase' && e.token === c.visitorToken && Date.parse(`${e.received_at.replace(' ', 'T')}Z`) < c.startedAt)));
  t.ok(early, 'purchases before a conversation');
  t.ok(scenarios.some((s) => s.convos.some((c) => c.visitorToken === null)) && scenarios.some((s) => s.convos.some((c) => c.visitorToken === '')), 'conversations without a token');
  t.ok(scenarios.every((s) => Object.values(DIMENSION_LISTS).every((k) => s.convos.some((c) => c.analysis?.[k].length))), 'every dimension named');
});

for (const variant of databaseVariants()) {
  t.test(`PostgreSQL ${variant.name}`, { skip: variant.skip }, async (t) => {
    const pg = await variant.open();
    t.teardown(() => pg.destroy());
    await seedPostgres(pg.postgres.db, scenarios.flatMap((s) => [s.bot, s.other]), scenarios.flatMap((s) => s.convos));

    for (const [engineName, engine] of [['embedded', ch.embedded], ['server via HTTP bridge', ch.server]] as const) {
      t.test(`ClickHouse ${engineName}`, async (t) => {
        const repo = createStatsRepository({ clickhouse: engine, db: pg.postgres.db, appUrl: APP_URL });
        for (const s of engineName === 'embedded' ? scenarios : scenarios.slice(0, SERVER_SEEDS)) {
          for (const days of TIMEFRAMES) {
            const w = daysWindow(days, new Date(NOW));
            const [from, to] = [w.from.getTime(), w.to.getTime()];
            const at = `seed ${s.seed}, ${days} day(s)`;
            t.same(await repo.cart(s.bot.id, w), oracleCart(s.events, s.bot.id, from, to), `cart, ${at}`);
            for (const dimension of TOPIC_DIMENSIONS) {
              t.same(await repo.topics(s.bot.id, w, dimension), oracleTopics(s.convos, s.events, s.bot.id, from, to, dimension, APP_URL), `topics ${dimension}, ${at}`);
            }
          }
        }
      });
    }

    t.test('the tokens in many small batches: the same figures as in one', async (t) => {
      const w = daysWindow(30, new Date(NOW));
      for (const [engineName, engine] of [['embedded', ch.embedded], ['server via HTTP bridge', ch.server]] as const) {
        const s = scenarios[0]!;
        const tokens = [...new Set(s.convos.map((c) => c.visitorToken).filter((x): x is string => !!x))];
        const small = await createCartStatsRepository(engine, { tokenBatchBytes: 300 }).topicTokens(s.bot.id, w, tokens);
        const whole = await createCartStatsRepository(engine).topicTokens(s.bot.id, w, tokens);
        t.ok(whole.size > 10, `${engineName}: ${whole.size} tokens with rows`);
        t.same([...small.entries()].sort(), [...whole.entries()].sort(), `${engineName}: ${Math.ceil(tokens.length / 6)}+ batches`);
      }
    });

    t.test('a chatbot without any data: every number 0, every list empty', async (t) => {
      const repo = createStatsRepository({ clickhouse: ch.embedded, db: pg.postgres.db, appUrl: APP_URL });
      const w = daysWindow(365, new Date(NOW));
      const id = createRng(99).uuid();
      const cart = await repo.cart(id, w);
      t.same(cart, oracleCart([], id, w.from.getTime(), w.to.getTime()));
      t.equal(cart.cart_conversion_rate, 0);
      t.same(await repo.topics(id, w, 'intent'), oracleTopics([], [], id, w.from.getTime(), w.to.getTime(), 'intent', APP_URL));
    });
  });
}
