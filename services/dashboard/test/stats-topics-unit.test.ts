/**
 * The pure parts of revenue by topic (topics-report.ts) and the token batches of its ClickHouse
 * read (stats/statistics/topics.ts), on hand-made inputs whose answers are worked out here.
 */
import t from 'tap';
import { tokenBatches, tokenUrlBytes, type TopicToken } from '../src/stats/statistics/topics.js';
import { buildTopicsReport, TOPIC_ITEMS_LIMIT, TOPIC_LINKS_LIMIT, type TopicConversation } from '../src/stats/topics-report.js';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const ms = (minute: number) => at(minute).getTime();
const convo = (id: string, minute: number, token: string, items: string[]): TopicConversation => ({ id, startedAt: at(minute), token, items });
const did = (entries: [string, Partial<TopicToken>][]) =>
  new Map(entries.map(([token, d]) => [token, { inV: true, added: false, cartValue: 0, purchases: [], ...d }]));
const link = (id: string) => `L/${id}`;

t.test('a purchase counts for an item only after the start of one of the token\'s conversations naming it, once', async (t) => {
  const r = buildTopicsReport([
    convo('c1', 10, 'u1', ['Shoes', ' shoes ']),
    convo('c2', 30, 'u1', ['Hats']),
    convo('c3', 20, 'u2', ['SHOES', '   ']),
  ], did([
    ['u1', { purchases: [{ at: ms(5), revenue: 100 }, { at: ms(15), revenue: 40 }, { at: ms(35), revenue: 2.5 }] }],
    ['u2', { purchases: [{ at: ms(20), revenue: 7 }] }],
  ]), link);
  t.same(r.items.map((i) => [i.item, i.conversations, i.visitors, i.purchasers, i.revenue, i.orders, i.conversion_rate]), [
    // u1 bought at 15 and 35, after c1 (10); u2's purchase at its conversation's very start is not after it.
    ['Shoes', 2, 2, 1, 42.5, 2, 50],
    ['Hats', 1, 1, 1, 2.5, 1, 100],
  ]);
  t.same(r.items[0]!.links, ['L/c1', 'L/c3'], 'links oldest first');
  t.same(r.totals, { conversations: 3, visitors: 2, purchasers: 1, revenue: 42.5, orders: 2, conversion_rate: 50, abandoned_carts: 0, abandoned_value: 0 });
});

t.test('abandoned carts: visitors of V with a cart and no counted purchase at all', async (t) => {
  const r = buildTopicsReport([
    convo('a', 1, 'carted', ['warranty']), convo('b', 2, 'bought', ['warranty']), convo('c', 3, 'notInV', ['warranty']), convo('d', 4, 'silent', []),
  ], did([
    ['carted', { added: true, cartValue: 19.999 }],
    // A purchase BEFORE the conversation still makes the cart bought (B is any counted purchase in W).
    ['bought', { added: true, cartValue: 50, purchases: [{ at: ms(0), revenue: 50 }] }],
    ['notInV', { inV: false, added: true, cartValue: 80 }],
    ['silent', { added: true, cartValue: 1000 }],
  ]), link);
  t.same([r.items[0]!.abandoned_carts, r.items[0]!.abandoned_value, r.items[0]!.revenue], [1, 20, 0]);
  t.same([r.totals.abandoned_carts, r.totals.abandoned_value], [1, 20], 'totals: only visitors of conversations naming an item');
  t.equal(r.totals.visitors, 4);
});

t.test('order: revenue, then conversations, then byte order; at most 50 items and 5 links', async (t) => {
  const many = Array.from({ length: 60 }, (_, i) => convo(`m${i}`, i, `t${i}`, [`item ${String(i).padStart(2, '0')}`, 'common', i % 2 ? 'b' : 'B2']));
  const r = buildTopicsReport(many, did([['t59', { purchases: [{ at: ms(100), revenue: 1 }] }]]), link);
  t.equal(r.items.length, TOPIC_ITEMS_LIMIT);
  t.same(r.items.slice(0, 4).map((i) => i.item), ['common', 'b', 'item 59', 'B2'], 'revenue first (t59 bought: common, b, item 59), then conversations');
  t.equal(r.items[0]!.links.length, TOPIC_LINKS_LIMIT);
  t.same(r.items.slice(4, 6).map((i) => i.item), ['item 00', 'item 01'], 'then byte order');
  t.same(buildTopicsReport([], new Map(), link), { items: [], totals: { conversations: 0, visitors: 0, purchasers: 0, revenue: 0, orders: 0, conversion_rate: 0, abandoned_carts: 0, abandoned_value: 0 } });
});

t.test('token batches: every token once, in order, each batch under the byte bound', async (t) => {
  const tokens = Array.from({ length: 1000 }, (_, i) => `token-${i}-${'x'.repeat(i % 40)}`);
  const batches = tokenBatches(tokens, 5000);
  t.ok(batches.length > 1);
  t.same(batches.flat(), tokens);
  t.ok(batches.every((b) => b.reduce((s, x) => s + tokenUrlBytes(x), 0) <= 5000));
  t.ok(tokenUrlBytes('ä') >= encodeURIComponent("'ä',").length, 'the bound covers percent-encoding');
  t.same(tokenBatches([]), []);
  t.same(tokenBatches(['y'.repeat(10_000)], 100), [['y'.repeat(10_000)]], 'a token over the bound still goes, alone');
});
