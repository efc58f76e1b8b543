/**
 * The ORACLE of the purchases statistic under the revenue source 'orders' (docs/statistics.md,
 * "Revenue source"), written plainly over the generated rows: no SQL, no code shared with the
 * implementation but the rounding rule and the static EUR table (data, not logic).
 */
import { EUR_RATES, type StoredEvent, type StoredOrder, type StoredRefund } from '@chatlytics/events';
import { parseChTime } from '@chatlytics/testkit';
import { percent, ratio, round2 } from '../src/stats/numbers.js';
import { tokensOf, windowEvents } from './stats-oracle.js';

const DAY_MS = 86_400_000;

/** Each order's latest state: the report with the largest version. */
export function latestStates(reports: readonly StoredOrder[], chatbotId: string): StoredOrder[] {
  const best = new Map<string, StoredOrder>();
  for (const r of reports) {
    if (r.chatbot_id !== chatbotId) continue;
    const seen = best.get(r.order_id);
    if (!seen || BigInt(r.version) > BigInt(seen.version)) best.set(r.order_id, r);
  }
  return [...best.values()];
}

/** Net EUR value: 0 when cancelled or refunded; else gross less its distinct refunds (each at its largest amount), never below 0. */
export function netEur(o: StoredOrder, refunds: readonly StoredRefund[]): number {
  if (o.status !== 'paid') return 0;
  const byId = new Map<string, number>();
  for (const r of refunds) {
    if (r.chatbot_id === o.chatbot_id && r.order_id === o.order_id) byId.set(r.refund_id, Math.max(byId.get(r.refund_id) ?? 0, r.amount));
  }
  const refunded = [...byId.values()].reduce((a, b) => a + b, 0);
  return Math.max(0, o.gross_value - refunded) * (EUR_RATES[o.currency] ?? 0);
}

/** Conversation starts of the chatbot: each event once, at its earliest copy ever (not a bot's). */
function conversationStarts(events: readonly StoredEvent[], chatbotId: string): { token: string; at: number }[] {
  const first = new Map<string, { token: string; at: number }>();
  for (const e of events) {
    if (e.chatbot_id !== chatbotId || e.is_bot === true || e.event !== 'convo_started') continue;
    const at = parseChTime(e.received_at);
    const seen = first.get(e.event_id);
    if (!seen || at < seen.at) first.set(e.event_id, { token: e.token, at });
  }
  return [...first.values()];
}

/** Products clicked in the chat: click_through events with data.item_id, each at its earliest copy (not a bot's). */
function clicks(events: readonly StoredEvent[], chatbotId: string): { token: string; at: number; item: string }[] {
  const first = new Map<string, { token: string; at: number; item: string }>();
  for (const e of events) {
    if (e.chatbot_id !== chatbotId || e.is_bot === true || e.event !== 'click_through') continue;
    const item = (JSON.parse(e.data) as { item_id?: unknown }).item_id;
    if (item === undefined || item === null) continue;
    const at = parseChTime(e.received_at);
    const seen = first.get(e.event_id);
    if (!seen || at < seen.at) first.set(e.event_id, { token: e.token, at, item: String(item) });
  }
  return [...first.values()];
}

export function oraclePurchasesFromOrders(
  events: readonly StoredEvent[], reports: readonly StoredOrder[], refunds: readonly StoredRefund[],
  chatbotId: string, from: number, to: number, windowDays: number, abTestEnabled: boolean,
) {
  const w = windowEvents(events, chatbotId, from, to);
  const v = tokensOf(w, 'visitor');
  const chatted = new Set([...tokensOf(w, 'convo_started')].filter((x) => v.has(x)));
  const starts = conversationStarts(events, chatbotId);
  const clicked = clicks(events, chatbotId);
  const P = latestStates(reports, chatbotId)
    .map((o) => ({ token: o.token, at: parseChTime(o.placed_at), revenue: netEur(o, refunds), items: o.item_ids }))
    .filter((o) => o.at >= from && o.at <= to && v.has(o.token));
  // After chat: the token started a conversation in [at − window, at).
  const afterChat = (o: { token: string; at: number }) => starts.some((c) => c.token === o.token && c.at >= o.at - windowDays * DAY_MS && c.at < o.at);
  const inSpan = (at: number, o: { at: number }) => at >= o.at - windowDays * DAY_MS && at < o.at;
  // Direct: after chat, and one of its items clicked in the chat in the same span.
  const direct = (o: (typeof P)[number]) => afterChat(o) && clicked.some((c) => c.token === o.token && o.items.includes(c.item) && inSpan(c.at, o));
  const revenue = (os: typeof P) => os.reduce((s, o) => s + o.revenue, 0);
  const after = P.filter(afterChat);
  const other = P.filter((o) => !afterChat(o));
  const purchased = new Set(P.map((o) => o.token)).size;
  const chattedPurchased = new Set(after.map((o) => o.token)).size;
  const result: Record<string, unknown> = {
    attribution: { source: 'orders', window_days: windowDays },
    total_users: v.size,
    total_users_chatted: chatted.size,
    total_users_purchased: purchased,
    total_users_chatted_purchased: chattedPurchased,
    total_revenue_purchased: round2(revenue(P)),
    total_revenue_chatted_purchased: round2(revenue(after)),
    conversion_rate_with_chat: percent(chattedPurchased, chatted.size),
    conversion_rate_without_chat: percent(purchased - chattedPurchased, v.size),
    aov_with_chat: ratio(revenue(after), after.length),
    aov_without_chat: ratio(revenue(other), other.length),
    orders_direct: P.filter(direct).length,
    total_revenue_direct: round2(revenue(P.filter(direct))),
  };
  if (abTestEnabled) {
    const group = (g: 'control' | 'test') => {
      const vg = new Set(w.filter((e) => e.row.ab_group === g && v.has(e.token)).map((e) => e.token));
      const orders = P.filter((o) => vg.has(o.token));
      const customers = new Set(orders.map((o) => o.token)).size;
      return { visitors: vg.size, orders: orders.length, purchasers: customers, revenue: revenue(orders), conversion_rate: percent(customers, vg.size), aov: ratio(revenue(orders), orders.length), arpu: ratio(revenue(orders), vg.size) };
    };
    result.ab_test = { control: group('control'), test: group('test') };
  }
  return result;
}

/** The orders of P (as oraclePurchasesFromOrders) by the UTC day of placed_at: count and net EUR revenue (2 decimals). */
export function oracleOrderDays(
  events: readonly StoredEvent[], reports: readonly StoredOrder[], refunds: readonly StoredRefund[], chatbotId: string, from: number, to: number,
): Map<string, { purchases: number; revenue: number }> {
  const v = tokensOf(windowEvents(events, chatbotId, from, to), 'visitor');
  const days = new Map<string, { purchases: number; revenue: number }>();
  for (const o of latestStates(reports, chatbotId)) {
    const at = parseChTime(o.placed_at);
    if (at < from || at > to || !v.has(o.token)) continue;
    const day = new Date(at).toISOString().slice(0, 10);
    const d = days.get(day) ?? { purchases: 0, revenue: 0 };
    d.purchases++;
    d.revenue += netEur(o, refunds);
    days.set(day, d);
  }
  for (const d of days.values()) d.revenue = round2(d.revenue);
  return days;
}
