import { compareBytes } from './insights-report.js';
import { percent, round2 } from './numbers.js';

/**
 * Segments (services/dashboard/README.md, "Segments"): a token's segment is the source,
 * utm_campaign and device of its earliest `visitor` event in W. A filter restricts a statistic
 * to the tokens of V in that segment; the sources statistic groups V by one attribute.
 */
export interface SegmentFilter {
  source?: string;
  utm_campaign?: string;
  device?: string;
}

export const SEGMENT_BY = ['source', 'utm_campaign', 'device'] as const;
export type SegmentBy = (typeof SEGMENT_BY)[number];
export const NO_SEGMENT: SegmentFilter = Object.freeze({});

/** The segment filter of a query string: the attributes given (an empty value is refused by the schema). */
export function segmentOf(q: SegmentFilter): SegmentFilter {
  const out: SegmentFilter = {};
  for (const key of SEGMENT_BY) if (q[key] !== undefined && q[key] !== '') out[key] = q[key];
  return out;
}

export const isFiltered = (s: SegmentFilter) => SEGMENT_BY.some((k) => s[k] !== undefined && s[k] !== '');

/** The bound parameters of shared/segment_tokens.sql: '' = any. */
export function segmentParams(s: SegmentFilter) {
  return {
    segment_filtered: isFiltered(s),
    segment_source: s.source ?? '',
    segment_utm_campaign: s.utm_campaign ?? '',
    segment_device: s.device ?? '',
  };
}

/** A stable text of the filter, for cache keys and file names ('' without a filter). */
export function segmentKey(s: SegmentFilter): string {
  return isFiltered(s) ? JSON.stringify(SEGMENT_BY.map((k) => s[k] ?? '')) : '';
}

/** Per the definitions: the sources statistic shows this many values, the rest summed in `other`. */
export const SOURCES_SHOWN = 50;

export interface SourceCounts { value: string; visitors: number; chatted: number; purchasers: number; chatted_purchasers: number; revenue: number }

/** A row of the answer: the purchases statistic's rates over the row's tokens. */
function sourceRow(c: Omit<SourceCounts, 'value'>) {
  return {
    visitors: c.visitors,
    chatted: c.chatted,
    purchasers: c.purchasers,
    revenue: round2(c.revenue),
    conversion_rate_with_chat: percent(c.chatted_purchasers, c.chatted),
    conversion_rate_without_chat: percent(c.purchasers - c.chatted_purchasers, c.visitors),
  };
}

/**
 * The SOURCES_SHOWN values with the most visitors (ties: value in byte order), in that order,
 * and `other`: the exact sums of the rest (`values` = how many; all 0 when none).
 */
export function boundSourceRows(rows: readonly SourceCounts[], shown = SOURCES_SHOWN) {
  const ranked = [...rows].sort((a, b) => b.visitors - a.visitors || compareBytes(a.value, b.value));
  const rest = ranked.slice(shown);
  const sum = (k: keyof Omit<SourceCounts, 'value'>) => rest.reduce((n, r) => n + r[k], 0);
  return {
    rows: ranked.slice(0, shown).map((r) => ({ value: r.value, ...sourceRow(r) })),
    other: {
      values: rest.length,
      ...sourceRow({ visitors: sum('visitors'), chatted: sum('chatted'), purchasers: sum('purchasers'), chatted_purchasers: sum('chatted_purchasers'), revenue: sum('revenue') }),
    },
  };
}
