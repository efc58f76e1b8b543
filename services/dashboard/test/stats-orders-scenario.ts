/**
 * Generated events and shop orders for the revenue source 'orders' (the oracle suite, and the
 * cluster suite's orders statistics): a chatbot's events, and its orders resent and reordered,
 * refunded (in a state and alone), cancelled, placed exactly on the attribution window's edges,
 * with products clicked in the chat inside and outside that window.
 */
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { isOrderProblem, toStoredOrder, toStoredRefund, type OrderBody, type StoredEvent, type StoredOrder, type StoredRefund } from '@chatlytics/events';
import { chTime, createRng, generateEvents, parseChTime, type Rng } from '@chatlytics/testkit';

export const NOW = Date.parse('2026-05-20T12:34:56.789Z');
export const DAY = 86_400_000;
export const TIMEFRAMES = [1, 7, 30];
export const iso = (ms: number) => new Date(ms).toISOString();

export interface Scenario { seed: number; bot: { id: string; abTestEnabled: boolean; windowDays: number }; events: StoredEvent[]; orders: StoredOrder[]; refunds: StoredRefund[]; edges: number }

export function stored(chatbotId: string, body: OrderBody): StoredOrder {
  const s = toStoredOrder(chatbotId, body, 'api', new Date(NOW));
  if (isOrderProblem(s)) throw new Error(`${s.field}: ${s.message}`);
  return s;
}

function shuffle<T>(rng: Rng, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) { const j = rng.int(0, i); [xs[i], xs[j]] = [xs[j], xs[i]]; }
  return xs;
}

export function ordersScenario(seed: number): Scenario {
  const rng = createRng(seed * 104_729);
  const bot = { id: rng.uuid(), abTestEnabled: seed % 2 === 0, windowDays: rng.pick([1, 3, 7, 30]) };
  const other = rng.uuid();
  const events = generateEvents({ seed, now: NOW, chatbotId: bot.id, otherChatbotIds: [other], boundaryDays: TIMEFRAMES });
  const mine = events.filter((e) => e.chatbot_id === bot.id && !e.is_bot);
  const visitors = [...new Set(mine.filter((e) => e.event === 'visitor').map((e) => e.token))];
  const chats = mine.filter((e) => e.event === 'convo_started');
  const reports: StoredOrder[] = [];
  const refunds: StoredRefund[] = [];
  let n = 0;
  const order = (token: string | undefined, at: number, extra: Partial<OrderBody> = {}): OrderBody => ({
    order_id: `ORD-${seed}-${n++}`, token, placed_at: iso(at), currency: rng.pick(['EUR', 'EUR', 'USD', 'GBP', 'XXX']),
    items: Array.from({ length: rng.int(1, 3) }, (_, i) => ({ item_id: `p${rng.int(1, 20)}-${i}`, quantity: rng.int(1, 3), value: rng.int(100, 20_000) / 100 })),
    status: 'paid', ...extra,
  });
  const report = (body: OrderBody) => { reports.push(stored(bot.id, body)); return body; };
  // The window's edges, from real conversation starts: [at − window, at) holds the first and
  // the last, not the other two.
  let edges = 0;
  for (const c of chats.slice(0, 6)) {
    const at = parseChTime(c.received_at);
    for (const placed of [at + bot.windowDays * DAY, at + 1, at, at + bot.windowDays * DAY + 1]) {
      if (placed <= NOW) { report(order(c.token, placed)); edges++; }
    }
  }
  // Orders of visitors at random times, some unknown tokens and some without one; resent,
  // refunded (in the state and alone), cancelled, reported out of order.
  for (let i = 0; i < 40; i++) {
    const token = rng.chance(0.8) ? rng.pick(visitors) : rng.chance(0.5) ? `tok_unknown-${seed}-${i}` : undefined;
    const body = report(order(token, NOW - rng.int(0, 40 * DAY)));
    const placed = Date.parse(body.placed_at);
    if (rng.chance(0.3)) report(body);
    if (rng.chance(0.3)) {
      const refundsSoFar = [{ refund_id: `${body.order_id}-r1`, at: iso(placed + DAY), amount: rng.int(100, 5_000) / 100 }];
      report({ ...body, refunds: refundsSoFar });
      if (rng.chance(0.5)) report({ ...body, refunds: [...refundsSoFar, { refund_id: `${body.order_id}-r2`, at: iso(placed + 2 * DAY), amount: rng.int(100, 2_000) / 100 }] });
    }
    if (rng.chance(0.2)) {
      const alone = toStoredRefund(bot.id, { order_id: body.order_id, refund_id: `${body.order_id}-shop`, at: iso(placed + 3 * DAY), amount: rng.int(100, 3_000) / 100 }, 'shopify', new Date(NOW));
      if (isOrderProblem(alone)) throw new Error(alone.message);
      refunds.push(alone);
    }
    if (rng.chance(0.15)) report({ ...body, status: rng.pick(['cancelled', 'refunded'] as const) });
  }
  // Products clicked in the chat before some orders: one of the order's items or another, after
  // a chat or without one, inside the attribution span or before it.
  const template = mine[0];
  let k = 0;
  const click = (token: string, at: number, item: string | number, chat: boolean): StoredEvent[] => {
    const base = { ...template, token, is_bot: false, ab_group: null, ab_test: false, order_num: '', items: [], total_value: 0, total_value_base: null };
    const id = () => `00000000-0000-4000-9${String(seed).padStart(3, '0')}-${String(++k).padStart(12, '0')}`;
    const clickEv = { ...base, event_id: id(), event: 'click_through', received_at: chTime(at), data: JSON.stringify({ chatbot_id: bot.id, item_id: item }) };
    return chat ? [{ ...base, event_id: id(), event: 'convo_started', received_at: chTime(at - 60_000), data: JSON.stringify({ chatbot_id: bot.id }) }, clickEv] : [clickEv];
  };
  for (const o of reports.filter((r) => r.token !== '' && visitors.includes(r.token)).slice(0, 16)) {
    const placed = parseChTime(o.placed_at);
    const inSpan = placed - rng.int(2 * 60_000, Math.max(3 * 60_000, bot.windowDays * DAY - 60_000));
    const variant = rng.int(0, 3);
    if (variant === 0) events.push(...click(o.token, inSpan, o.item_ids[0], true));
    if (variant === 1) events.push(...click(o.token, inSpan, 'not-in-the-order', true));
    if (variant === 2) events.push(...click(o.token, placed - bot.windowDays * DAY - 120_000, o.item_ids[0], true));
    if (variant === 3) events.push(...click(o.token, inSpan, o.item_ids[0], false));
  }
  // Another chatbot's order with a visitor's token and an order id of ours: never counted.
  reports.push(stored(other, order(visitors[0], NOW - DAY, { order_id: `ORD-${seed}-0` })));
  for (const o of reports) refunds.push(...o.refund_ids.map((refund_id, i) => ({ chatbot_id: o.chatbot_id, order_id: o.order_id, refund_id, at: o.refund_ats[i], amount: o.refund_amounts[i], source: o.source, received_at: o.received_at })));
  return { seed, bot, events, orders: shuffle(rng, reports), refunds, edges };
}

/**
 * Orders as the consumer stores them: with their token's id where token_ids has it (migration
 * 0200), except every third, stored with 0 as when the order came ahead of its visitor's
 * events: the statistics look those up when they read them. Both paths must give the oracle.
 * The scenarios' events are stored first (insertEvents).
 */
export async function insertOrders(engine: ClickHouseEngine, scenarios: readonly Scenario[]): Promise<void> {
  const idOf = new Map((await engine.query<{ chatbot_id: string; token: string; token_id: string }>(
    'SELECT chatbot_id, token, toString(min(token_id)) AS token_id FROM token_ids GROUP BY chatbot_id, token')).map((r) => [`${r.chatbot_id}\n${r.token}`, r.token_id]));
  for (const s of scenarios) {
    await engine.insert('orders', s.orders.map((o, i) => ({ ...o, token_id: i % 3 === 0 ? '0' : idOf.get(`${o.chatbot_id}\n${o.token}`) ?? '0' })));
    await engine.insert('order_refunds', s.refunds);
  }
}
