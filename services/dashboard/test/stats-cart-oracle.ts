/**
 * The ORACLE of "cart" and "topics" (services/dashboard/docs/statistics.md): the definitions written
 * plainly over the generated rows, sharing with the implementation only the rounding rule; the
 * window, retry and order rules come from the statistics oracle (stats-oracle.ts).
 */
import type { StoredEvent } from '@chatlytics/events';
import { EUR_RATES } from '@chatlytics/testkit';
import { percent, round2 } from '../src/stats/numbers.js';
import { countedPurchases, tokensOf, windowEvents, type Ev } from './stats-oracle.js';
import type { TokenConversation } from './cart-scenario.js';

const intersect = (a: Set<string>, b: Set<string>) => new Set([...a].filter((x) => b.has(x)));
const minus = (a: Set<string>, b: Set<string>) => new Set([...a].filter((x) => !b.has(x)));

/** An added_to_cart event's items in EUR; an item in a currency without a rate counts 0. */
const cartValue = (e: Ev) => e.row.items.reduce((s, i) => s + i.value * i.quantity * (EUR_RATES[i.currency] ?? 0), 0);

export function oracleCart(events: readonly StoredEvent[], chatbotId: string, from: number, to: number) {
  const w = windowEvents(events, chatbotId, from, to);
  const V = tokensOf(w, 'visitor');
  const chatted = intersect(V, tokensOf(w, 'convo_started'));
  const B = new Set(countedPurchases(events, chatbotId, w).filter((p) => V.has(p.token)).map((p) => p.token));
  const figures = (S: Set<string>) => {
    const A = intersect(S, tokensOf(w, 'added_to_cart'));
    const G = intersect(S, tokensOf(w, 'go_to_cart'));
    const bought = intersect(S, B);
    const abandoned = minus(A, B);
    const value = w.filter((e) => e.event === 'added_to_cart' && abandoned.has(e.token)).reduce((s, e) => s + cartValue(e), 0);
    return {
      users_added_to_cart: A.size,
      users_went_to_cart: G.size,
      users_purchased: bought.size,
      users_added_and_purchased: intersect(A, B).size,
      cart_conversion_rate: percent(intersect(A, B).size, A.size),
      users_abandoned: abandoned.size,
      abandoned_value: round2(value),
    };
  };
  const notChatted = minus(V, chatted);
  return {
    total_users: V.size,
    ...figures(V),
    chatted: { users: chatted.size, ...figures(chatted) },
    not_chatted: { users: notChatted.size, ...figures(notChatted) },
  };
}

export const DIMENSION_LISTS = {
  intent: 'intents', product: 'talkedAboutProducts', clicked_product: 'clickedProducts', complaint: 'complaints', missing_information: 'missingInformation',
} as const;

export function oracleTopics(
  convos: readonly TokenConversation[], events: readonly StoredEvent[], chatbotId: string, from: number, to: number,
  dimension: keyof typeof DIMENSION_LISTS, appUrl: string,
) {
  const C = convos
    .filter((c) => c.chatbotId === chatbotId && c.analysis && c.startedAt >= from && c.startedAt <= to && c.visitorToken)
    .sort((a, b) => a.startedAt - b.startedAt);
  const w = windowEvents(events, chatbotId, from, to);
  const V = tokensOf(w, 'visitor');
  const counted = countedPurchases(events, chatbotId, w);
  const anyPurchase = new Set(counted.map((p) => p.token));
  const carted = intersect(V, tokensOf(w, 'added_to_cart'));
  /** Figures of the conversations `list`: purchases after the start of one of the token's conversations in it. */
  const figures = (list: TokenConversation[]) => {
    const tokens = new Set(list.map((c) => c.visitorToken!));
    const after = counted.filter((p) => list.some((c) => c.visitorToken === p.token && p.at > c.startedAt));
    const purchasers = new Set(after.map((p) => p.token)).size;
    const abandoned = [...tokens].filter((tk) => carted.has(tk) && !anyPurchase.has(tk));
    const abandonedValue = w.filter((e) => e.event === 'added_to_cart' && abandoned.includes(e.token)).reduce((s, e) => s + cartValue(e), 0);
    return {
      visitors: tokens.size,
      purchasers,
      revenue: round2(after.reduce((s, p) => s + (p.row.total_value_base ?? 0), 0)),
      orders: after.length,
      conversion_rate: percent(purchasers, tokens.size),
      abandoned_carts: abandoned.length,
      abandoned_value: round2(abandonedValue),
    };
  };
  const named = new Map<string, { item: string; list: TokenConversation[] }>();
  for (const c of C) {
    for (const raw of c.analysis![DIMENSION_LISTS[dimension]]) {
      const key = raw.trim().toLowerCase();
      if (!key) continue;
      const entry = named.get(key) ?? { item: raw.trim(), list: [] };
      if (!entry.list.includes(c)) entry.list.push(c);
      named.set(key, entry);
    }
  }
  const items = [...named.values()].map(({ item, list }) => {
    const f = figures(list);
    return {
      item, conversations: list.length, visitors: f.visitors, purchasers: f.purchasers, revenue: f.revenue, orders: f.orders,
      conversion_rate: f.conversion_rate, abandoned_carts: f.abandoned_carts, abandoned_value: f.abandoned_value,
      links: list.slice(0, 5).map((c) => `${appUrl}/app/${chatbotId}/conversations/${c.id}`),
    };
  }).sort((a, b) => b.revenue - a.revenue || b.conversations - a.conversations || Buffer.compare(Buffer.from(a.item), Buffer.from(b.item)));
  const all = figures(C);
  const naming = figures(C.filter((c) => c.analysis![DIMENSION_LISTS[dimension]].some((x) => x.trim() !== '')));
  return {
    dimension,
    items: items.slice(0, 50),
    totals: {
      conversations: C.length, visitors: all.visitors, purchasers: all.purchasers, revenue: all.revenue, orders: all.orders,
      conversion_rate: all.conversion_rate, abandoned_carts: naming.abandoned_carts, abandoned_value: naming.abandoned_value,
    },
  };
}
