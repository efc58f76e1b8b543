import { compareBytes } from './insights-report.js';
import { percent, round2 } from './numbers.js';

/** `dimension` of revenue by topic and the analysis list each reads (services/dashboard/docs/statistics.md, "topics"). */
export const TOPIC_DIMENSIONS = ['intent', 'product', 'clicked_product', 'complaint', 'missing_information'] as const;
export type TopicDimension = (typeof TOPIC_DIMENSIONS)[number];

/** Per the statistics definitions: at most 50 items, and 5 conversation links per item. */
export const TOPIC_ITEMS_LIMIT = 50;
export const TOPIC_LINKS_LIMIT = 5;

/** What one conversation token did in W (stats/topics.sql). */
export interface TopicToken {
  inV: boolean;
  added: boolean;
  /** EUR value of its added_to_cart events in W, unrounded. */
  cartValue: number;
  /** Its counted purchases in W: epoch ms and EUR revenue. */
  purchases: { at: number; revenue: number }[];
}

/** One conversation of C as PostgreSQL reads it: its visitor token and the dimension's items. */
export interface TopicConversation {
  id: string;
  startedAt: Date;
  token: string;
  items: string[];
}

interface Figures {
  purchasers: number;
  revenue: number;
  orders: number;
  abandoned_carts: number;
  abandoned_value: number;
}

/**
 * The purchase and cart figures of a set of visitors, each given the earliest start of its
 * conversations in the set: a purchase counts when it was received strictly after that start
 * (each purchase once); a cart is abandoned as in "cart" (a visitor of V with an added_to_cart
 * in W and no counted purchase in W at all).
 */
function figuresOf(firstStart: ReadonlyMap<string, number>, did: ReadonlyMap<string, TopicToken>): Figures {
  const f: Figures = { purchasers: 0, revenue: 0, orders: 0, abandoned_carts: 0, abandoned_value: 0 };
  for (const [token, start] of firstStart) {
    const t = did.get(token);
    if (!t) continue;
    const after = t.purchases.filter((p) => p.at > start);
    if (after.length > 0) f.purchasers += 1;
    f.orders += after.length;
    f.revenue += after.reduce((sum, p) => sum + p.revenue, 0);
    if (t.inV && t.added && t.purchases.length === 0) {
      f.abandoned_carts += 1;
      f.abandoned_value += t.cartValue;
    }
  }
  return f;
}

const keepEarliest = (starts: Map<string, number>, token: string, at: number) => {
  if (!starts.has(token) || at < starts.get(token)!) starts.set(token, at);
};

/**
 * Revenue by topic from C (conversations, any order) and what their tokens did in W. Items are
 * trimmed and compared case-insensitively, blanks ignored, shown in their earliest spelling, as
 * the insights report does; a conversation naming an item twice counts once.
 */
export function buildTopicsReport(
  conversations: readonly TopicConversation[], did: ReadonlyMap<string, TopicToken>, link: (conversationId: string) => string,
) {
  const chronological = [...conversations].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || compareBytes(a.id, b.id));
  const byKey = new Map<string, { item: string; conversations: number; starts: Map<string, number>; links: string[] }>();
  const allStarts = new Map<string, number>();
  const namingStarts = new Map<string, number>();
  for (const c of chronological) {
    const at = c.startedAt.getTime();
    keepEarliest(allStarts, c.token, at);
    const seen = new Set<string>();
    for (const raw of c.items) {
      const item = raw.trim();
      const key = item.toLowerCase();
      if (item === '' || seen.has(key)) continue;
      seen.add(key);
      const entry = byKey.get(key) ?? { item, conversations: 0, starts: new Map<string, number>(), links: [] };
      entry.conversations += 1;
      keepEarliest(entry.starts, c.token, at);
      if (entry.links.length < TOPIC_LINKS_LIMIT) entry.links.push(link(c.id));
      byKey.set(key, entry);
    }
    if (seen.size > 0) keepEarliest(namingStarts, c.token, at);
  }
  const items = [...byKey.values()].map((e) => {
    const f = figuresOf(e.starts, did);
    return {
      item: e.item,
      conversations: e.conversations,
      visitors: e.starts.size,
      purchasers: f.purchasers,
      revenue: round2(f.revenue),
      orders: f.orders,
      conversion_rate: percent(f.purchasers, e.starts.size),
      abandoned_carts: f.abandoned_carts,
      abandoned_value: round2(f.abandoned_value),
      links: e.links,
    };
  });
  // By the rounded revenue shown, so that two engines' sums in another order cannot swap items.
  items.sort((a, b) => b.revenue - a.revenue || b.conversations - a.conversations || compareBytes(a.item, b.item));
  const all = figuresOf(allStarts, did);
  const naming = figuresOf(namingStarts, did);
  return {
    items: items.slice(0, TOPIC_ITEMS_LIMIT),
    totals: {
      conversations: conversations.length,
      visitors: allStarts.size,
      purchasers: all.purchasers,
      revenue: round2(all.revenue),
      orders: all.orders,
      conversion_rate: percent(all.purchasers, allStarts.size),
      abandoned_carts: naming.abandoned_carts,
      abandoned_value: round2(naming.abandoned_value),
    },
  };
}
