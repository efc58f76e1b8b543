import { DAY_RANGE } from '@chatlytics/core';

/**
 * One window across a chatbot's tabs: the analytics page's window is query pairs (`timeframe=N`
 * days, or `from`/`to` dates, with `compare` and the filter), the insights page's a timeframe
 * text (parseInsightsTimeframe). The tabs and the switcher carry the window from one page to the
 * other in the other's form, so choosing "30 days" on one tab shows 30 days on the next.
 */
export type QueryPairs = [string, string][];

/** The insights page's quick picks: the analytics page's, in its words. */
export const INSIGHTS_CHOICES = ['24 hours', '7 days', '30 days', '90 days'] as const;
/** Its default, the analytics page's 7 days. */
export const DEFAULT_INSIGHTS_TIMEFRAME = '7 days';

const NAMED_DAYS: Record<string, number> = { day: 1, week: 7, month: 30, '3 months': 90, '24 hours': 1 };

/** The insights timeframe of an analytics window (undefined: none given, the page's default). */
export function insightsTimeframeOf(pairs: QueryPairs): string | undefined {
  const q = new Map(pairs);
  const days = q.get('timeframe');
  if (days && /^[0-9]+$/.test(days)) return Number(days) === 1 ? '24 hours' : `${Number(days)} days`;
  const from = q.get('from');
  const to = q.get('to');
  return from && to ? `${from}..${to}` : undefined;
}

/** The analytics window of an insights timeframe; [] for one it has no form of (a month name, hours). */
export function analyticsPairsOf(timeframe: string): QueryPairs {
  const t = timeframe.trim().toLowerCase();
  const range = DAY_RANGE.exec(t);
  if (range) return [['from', range[1]], ['to', range[2]]];
  if (t in NAMED_DAYS) return [['timeframe', String(NAMED_DAYS[t])]];
  const days = /^([0-9]+)(?:\s+days?)?$/.exec(t);
  return days && Number(days[1]) >= 1 ? [['timeframe', String(Number(days[1]))]] : [];
}

/** The query string of a view's link that keeps the window (and, to analytics, the filter); '' for the other views. */
export function viewQuery(view: string, keep: QueryPairs): string {
  if (view === 'analytics') return keep.length ? `?${new URLSearchParams(keep).toString()}` : '';
  if (view === 'insights') {
    const timeframe = insightsTimeframeOf(keep);
    return timeframe ? `?${new URLSearchParams({ timeframe }).toString()}` : '';
  }
  return '';
}
