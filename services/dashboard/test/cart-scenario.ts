/**
 * Generated data for the cart and revenue-by-topic oracles: visitors who add to their cart
 * (items in known and unknown currencies, quantities), go to it, chat and buy or leave, around
 * the window's ends; retried copies, bot rows on visitors' tokens, another chatbot's rows on the
 * same tokens, repeated order numbers; and analysed conversations carrying those tokens (some
 * without a token, some with an empty one). From seeded generators, so every run is the same.
 */
import type { StoredEvent, StoredItem } from '@chatlytics/events';
import { DAY_MS, chTime, createRng, generateConversations, type GeneratedConversation, type Rng } from '@chatlytics/testkit';

export type TokenConversation = GeneratedConversation & { visitorToken: string | null };

// 'XYZ' is in no rate table: such an item counts 0 in a cart's value, the rest of the cart still counts.
const CURRENCIES = ['EUR', 'EUR', 'USD', 'GBP', 'XYZ', 'CHF'];
const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0';

function itemsOf(rng: Rng): StoredItem[] {
  return Array.from({ length: rng.int(0, 3) }, () => ({
    item_id: `sku-${rng.int(1, 20)}`, value: rng.int(100, 20_000) / 100, quantity: rng.int(1, 3), currency: rng.pick(CURRENCIES),
  }));
}

export function cartEvents(opts: { seed: number; now: number; chatbotId: string; otherChatbotId: string; users?: number; spanDays?: number }): { events: StoredEvent[]; tokens: string[] } {
  const rng = createRng(opts.seed * 31 + 7);
  const span = (opts.spanDays ?? 40) * DAY_MS;
  const rows: StoredEvent[] = [];
  const orders: string[] = [];
  const emit = (event: string, token: string, at: number, extra: Partial<StoredEvent> = {}) => {
    if (at > opts.now + 600_000) return;
    const items = extra.items ?? [];
    rows.push({
      event_id: rng.uuid(), event, token, chatbot_id: opts.chatbotId, received_at: chTime(at), ab_test: false, ab_group: null,
      popup_version: '', open_way: '', order_num: '', currency: '', total_value: 0, total_value_base: 0, items,
      url: 'https://shop.example/p', user_agent: BROWSER_UA, client_hash: '', data: '{}', is_bot: false, ...extra,
    });
  };
  const tokens: string[] = [];
  for (let u = opts.users ?? rng.int(30, 70); u > 0; u--) {
    const token = `cart${rng.string(8)}`;
    tokens.push(token);
    let t = opts.now - Math.floor(rng.next() * span);
    const step = () => (t += rng.int(1, 3 * 3_600_000));
    if (rng.chance(0.85)) emit('visitor', token, t);
    if (rng.chance(0.4)) emit('convo_started', token, step());
    for (let n = rng.chance(0.65) ? rng.int(1, 3) : 0; n > 0; n--) emit('added_to_cart', token, step(), { items: itemsOf(rng) });
    if (rng.chance(0.4)) emit('go_to_cart', token, step());
    if (rng.chance(0.3)) emit('convo_started', token, step());
    for (let n = rng.chance(0.45) ? rng.int(1, 2) : 0; n > 0; n--) {
      const items = itemsOf(rng);
      const orderNum = rng.chance(0.2) ? '' : orders.length > 0 && rng.chance(0.25) ? rng.pick(orders) : `C-${rng.int(1000, 99_999)}`;
      if (orderNum) orders.push(orderNum);
      const base = items.some((i) => i.currency === 'XYZ') ? null : items.reduce((s, i) => s + i.value * i.quantity * ({ EUR: 1, USD: 0.92, GBP: 1.17, CHF: 1.05 } as Record<string, number>)[i.currency]!, 0);
      emit('purchase', token, step(), { items, order_num: orderNum, total_value_base: base });
    }
    // Noise the statistics must ignore: another chatbot's cart on this token, and a crawler's.
    if (rng.chance(0.2)) rows.push({ ...rows[rows.length - 1]!, event_id: rng.uuid(), event: 'added_to_cart', chatbot_id: opts.otherChatbotId, items: itemsOf(rng) });
    if (rng.chance(0.15)) emit('added_to_cart', token, step(), { items: itemsOf(rng), user_agent: BOT_UA, is_bot: true });
  }
  // Retried beacons: the same event later (across a window end sometimes).
  const copies = rows.filter(() => rng.chance(0.12)).map((r) => ({ ...r, received_at: chTime(Date.parse(`${r.received_at.replace(' ', 'T')}Z`) + rng.pick([500, 3_600_000, 2 * DAY_MS])) }));
  return { events: [...rows, ...copies.filter((c) => Date.parse(`${c.received_at.replace(' ', 'T')}Z`) <= opts.now + 600_000)], tokens };
}

/** Analysed conversations of the chatbot, most carrying one of `tokens` (a few none, or an empty one). */
export function tokenConversations(opts: { seed: number; now: number; chatbotId: string; otherChatbotId: string; tokens: readonly string[] }): TokenConversation[] {
  const rng = createRng(opts.seed * 17 + 3);
  return generateConversations({ seed: opts.seed, now: opts.now, chatbotId: opts.chatbotId, otherChatbotIds: [opts.otherChatbotId], spanDays: 40 })
    .map((c) => ({ ...c, visitorToken: rng.chance(0.08) ? null : rng.chance(0.04) ? '' : rng.pick(opts.tokens) }));
}
