/**
 * Segments (services/dashboard/docs/statistics.md, "Segments"): a token's segment is the source,
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
