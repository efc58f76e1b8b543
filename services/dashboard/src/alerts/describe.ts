import type { AlertKind } from '@chatlytics/postgres';

/** One line per alert: what it watches, in words (the app page and the e-mails). */
export function describeCondition(a: { kind: AlertKind; threshold: number | null; windowMinutes: number }): string {
  const w = `the last ${a.windowMinutes} minute${a.windowMinutes === 1 ? '' : 's'}`;
  switch (a.kind) {
    case 'silence': return `no tracking event in ${w}`;
    case 'conversion_drop': return `conversion rate with chat over ${w} below ${a.threshold} % of the 7 windows before`;
    case 'dislike_share': return `dislikes at or above ${a.threshold} % of reactions over ${w}`;
    case 'ab_mismatch': return `A/B sample ratio mismatch over ${w}`;
  }
}

/** The figure of a transition, in words. */
export function describeValue(kind: AlertKind, value: number | null): string {
  if (value === null) return 'not enough data';
  switch (kind) {
    case 'silence': return `${value} event${value === 1 ? '' : 's'}`;
    case 'conversion_drop': return `${value} % of the baseline rate`;
    case 'dislike_share': return `${value} % dislikes`;
    case 'ab_mismatch': return `sample ratio p-value ${value}`;
  }
}
