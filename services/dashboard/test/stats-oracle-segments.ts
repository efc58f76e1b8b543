/**
 * The oracle of segments (services/dashboard/docs/statistics.md, "Segments" and "sources"), in plain
 * TypeScript over the generated rows, on top of the statistics' own oracle (stats-oracle.ts).
 */
import type { StoredEvent } from '@chatlytics/events';
import type { GeneratedConversation } from '@chatlytics/testkit';
import { oracleOverview, oraclePurchases, windowEvents } from './stats-oracle.js';

export interface Segment { source: string; utm_campaign: string; device: string }
export type SegmentBy = keyof Segment;
export type Filter = Partial<Segment>;

/** Each token of V with the attributes of its earliest visitor event in W (ties: smallest event_id). */
export function oracleSegments(events: readonly StoredEvent[], chatbotId: string, from: number, to: number): Map<string, Segment> {
  const first = new Map<string, { at: number; id: string; segment: Segment }>();
  for (const e of windowEvents(events, chatbotId, from, to)) {
    if (e.event !== 'visitor') continue;
    const seen = first.get(e.token);
    if (seen && (seen.at < e.at || (seen.at === e.at && seen.id < e.id))) continue;
    const r = e.row;
    first.set(e.token, { at: e.at, id: e.id, segment: { source: r.source ?? '', utm_campaign: r.utm_campaign ?? '', device: r.device ?? '' } });
  }
  return new Map([...first].map(([token, f]) => [token, f.segment]));
}

/** The tokens of V whose segment matches every attribute the filter gives. */
export function segmentTokens(events: readonly StoredEvent[], chatbotId: string, from: number, to: number, filter: Filter): Set<string> {
  const matches = (s: Segment) => (Object.keys(filter) as SegmentBy[]).every((k) => s[k] === filter[k]);
  return new Set([...oracleSegments(events, chatbotId, from, to)].filter(([, s]) => matches(s)).map(([token]) => token));
}

/**
 * The rows a statistic restricted to the tokens `S` reads: their events. Every purchase row
 * stays, because the order rule ("an order's first purchase ever") is a fact of the chatbot's
 * whole history; no statistic counts a purchase whose token is not in V, which is now S.
 */
export const restrictTo = (events: readonly StoredEvent[], S: Set<string>) =>
  events.filter((e) => S.has(e.token) || e.event === 'purchase');

/** overview restricted to S: the conversations whose visitor token is in S. */
export const oracleOverviewOf = (convos: readonly GeneratedConversation[], S: Set<string>, chatbotId: string, from: number, to: number) =>
  oracleOverview(convos.filter((c) => c.visitorToken != null && S.has(c.visitorToken)), chatbotId, from, to);

/** sources: per value of `by` among S's segments, the purchases statistic over that value's tokens; 50 rows, the rest as `other`. */
export function oracleSources(events: readonly StoredEvent[], chatbotId: string, from: number, to: number, by: SegmentBy, filter: Filter = {}) {
  const S = segmentTokens(events, chatbotId, from, to, filter);
  const segments = oracleSegments(events, chatbotId, from, to);
  const byValue = new Map<string, Set<string>>();
  for (const token of S) {
    const value = segments.get(token)![by];
    byValue.set(value, (byValue.get(value) ?? new Set()).add(token));
  }
  const figures = (tokens: Set<string>) => {
    const p = oraclePurchases(restrictTo(events, tokens), chatbotId, from, to, false);
    return {
      visitors: p.total_users as number,
      chatted: p.total_users_chatted as number,
      purchasers: p.total_users_purchased as number,
      revenue: p.total_revenue_purchased as number,
      conversion_rate_with_chat: p.conversion_rate_with_chat as number,
      conversion_rate_without_chat: p.conversion_rate_without_chat as number,
    };
  };
  const ranked = [...byValue].sort(([a, ta], [b, tb]) => tb.size - ta.size || Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const rest = ranked.slice(50);
  return {
    // The default revenue source, named in every answer (docs/statistics.md, "Revenue source").
    attribution: { source: 'tracker', window_days: null },
    by,
    rows: ranked.slice(0, 50).map(([value, tokens]) => ({ value, ...figures(tokens) })),
    other: { values: rest.length, ...figures(new Set(rest.flatMap(([, tokens]) => [...tokens]))) },
  };
}
