/**
 * Reconciliation (docs/statistics.md, "reconciliation"): per day, shop orders matched to a
 * tracker purchase, tracker-only purchases and shop-only orders, on the embedded engine and the
 * server client through the HTTP bridge.
 */
import t from 'tap';
import { isOrderProblem, toStoredOrder, type OrderBody, type StoredEvent } from '@chatlytics/events';
import { chTime, createRng, generateEvents } from '@chatlytics/testkit';
import { createStatsRepository } from '../src/stats/readers.js';
import { daysWindow } from '../src/stats/window.js';
import { insertEvents, openClickHouse } from './stats-fixtures.js';

const NOW = Date.parse('2026-05-20T12:00:00.000Z');
const DAY = 86_400_000;
const rng = createRng(6060);
const BOT = rng.uuid();
const OTHER = rng.uuid();
const template = generateEvents({ seed: 1, now: NOW, chatbotId: BOT, otherChatbotIds: [] })[0];
let n = 0;
const purchase = (orderNum: string, at: number, chatbotId = BOT, eventId?: string): StoredEvent => ({
  ...template, event_id: eventId ?? `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, event: 'purchase', token: `tok_recon-${n}`, chatbot_id: chatbotId,
  received_at: chTime(at), is_bot: false, order_num: orderNum, currency: 'EUR', total_value: 10, total_value_base: 10,
  items: [{ item_id: 'p1', value: 10, quantity: 1, currency: 'EUR' }], ab_group: null, ab_test: false,
});
const order = (orderId: string, at: number, status: OrderBody['status'] = 'paid', chatbotId = BOT) => {
  const s = toStoredOrder(chatbotId, { order_id: orderId, placed_at: new Date(at).toISOString(), currency: 'EUR', items: [{ item_id: 'p1', quantity: 1, value: 10 }], status }, 'api', new Date(NOW));
  if (isOrderProblem(s)) throw new Error(s.message);
  return s;
};

const day1 = NOW - 3 * DAY;
const day2 = NOW - 2 * DAY;
const retried = purchase('', day2 + 60_000);
const ch = await openClickHouse();
t.teardown(() => ch.close());
await insertEvents(ch.embedded, [
  purchase('A', day1), purchase('A', day1 + 1000), // the order's first purchase counts once
  purchase('B', day1 + 2000),                      // matched below, the order a day later
  purchase('FORGED', day2),                        // tracker-only
  retried, { ...retried, received_at: chTime(day2 + 120_000) }, // no order number: tracker-only, once
  purchase('C', day2, OTHER),                      // another chatbot's
  purchase('OLD', NOW - 40 * DAY),                 // before W: neither
]);
await ch.embedded.insert('orders', [
  order('A', day1 + 500), order('A', day1 + 500, 'cancelled'), // matched (a cancelled order is still the shop's)
  order('B', day2),                                             // matched, on its own day
  order('SHOP-ONLY', day2), order('SHOP-ONLY-2', NOW - DAY),    // the tracker missed them
  order('C', day2, 'paid', OTHER),                              // another chatbot's
]);

for (const [name, engine] of [['embedded', ch.embedded], ['server via HTTP bridge', ch.server]] as const) {
  t.test(`reconciliation per day (${name})`, async (t) => {
    const repo = createStatsRepository({ clickhouse: engine, db: undefined as never, appUrl: 'https://app.example.test' });
    const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    t.same(await repo.reconciliation(BOT, daysWindow(7, new Date(NOW))), {
      matched: 2, tracker_only: 2, shop_only: 2,
      days: [
        { date: date(day1), matched: 1, tracker_only: 0, shop_only: 0 },
        { date: date(day2), matched: 1, tracker_only: 2, shop_only: 1 },
        { date: date(NOW - DAY), matched: 0, tracker_only: 0, shop_only: 1 },
      ],
    });
    t.same(await repo.reconciliation(rng.uuid(), daysWindow(7, new Date(NOW))), { matched: 0, tracker_only: 0, shop_only: 0, days: [] }, 'a chatbot without data');
  });
}
