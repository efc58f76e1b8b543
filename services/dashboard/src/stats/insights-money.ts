import { compareBytes, type RankedItem } from './insights-report.js';
import type { TopicDimension } from './topics-report.js';

/** The ranked list of the insights report each dimension of revenue by topic reads. */
export const RANKED_LIST_OF = {
  clicked_product: 'most_clicked_products',
  product: 'most_talked_about_products',
  intent: 'most_frequent_intents',
  complaint: 'most_common_complaints',
  missing_information: 'missing_information_overview',
} as const satisfies Record<TopicDimension, string>;

/** Per the statistics definitions: "What the assistant did not know" names at most this many items. */
export const MISSING_COST_ITEMS = 10;

/** One item of revenue by topic, as much of it as the insights report shows. */
export interface TopicFigures { item: string; visitors: number; revenue: number; conversion_rate: number; abandoned_carts: number; abandoned_value: number }
export interface TopicReport { items: readonly TopicFigures[]; totals: { abandoned_carts: number; abandoned_value: number } }

/**
 * A ranked list with, beside each count, what its visitors bought after those conversations:
 * the item of revenue by topic over the same window, matched by its case-insensitive key (the
 * two reports normalise items alike); null when revenue by topic has no such item (none of its
 * conversations has a visitor token, or it is not among topics' 50).
 */
export function withMoney(list: readonly RankedItem[], topic: TopicReport) {
  const byKey = new Map(topic.items.map((i) => [i.item.trim().toLowerCase(), i]));
  return list.map((r) => {
    const t = byKey.get(r.item.trim().toLowerCase());
    return { ...r, visitors: t?.visitors ?? null, revenue: t?.revenue ?? null, conversion_rate: t?.conversion_rate ?? null };
  });
}

/**
 * What the assistant did not know cost: the carts abandoned by the visitors whose conversations
 * missed information (revenue by topic's totals), and the items with abandoned carts, the
 * costliest first (then carts, then item in byte order).
 */
export function missingInformationCost(topic: TopicReport) {
  return {
    abandoned_carts: topic.totals.abandoned_carts,
    abandoned_value: topic.totals.abandoned_value,
    items: topic.items.filter((i) => i.abandoned_carts > 0)
      .sort((a, b) => b.abandoned_value - a.abandoned_value || b.abandoned_carts - a.abandoned_carts || compareBytes(a.item, b.item))
      .slice(0, MISSING_COST_ITEMS)
      .map((i) => ({ item: i.item, abandoned_carts: i.abandoned_carts, abandoned_value: i.abandoned_value })),
  };
}
