import type { Compared } from './content.js';

/**
 * How the digest writes its figures: the API's own numbers (already rounded to 2 decimals),
 * grouped for reading. Changes: counts and money in percent of the previous week (none when
 * it was 0), conversion rates in percentage points.
 */
const count = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const formatCount = (n: number) => count.format(n);
export const formatMoney = (n: number) => `€${money.format(n)}`;
export const formatRate = (n: number) => `${money.format(n)} %`;

const signed = (n: number, text: string) => (n > 0 ? `+${text}` : n < 0 ? `−${text.replace(/^-/, '')}` : text);

/** "+12.5 %", "−3.0 %", "new" (from 0), "±0" (both 0). */
export function relativeChange({ current, previous }: Compared): string {
  if (previous === 0) return current === 0 ? '±0' : 'new';
  const pct = ((current - previous) / previous) * 100;
  return Math.abs(pct) < 0.05 ? '±0 %' : signed(pct, `${pct.toFixed(1)} %`);
}

/** "+1.25 pp" for rates. */
export function pointChange({ current, previous }: Compared): string {
  const d = Math.round((current - previous) * 100) / 100;
  return d === 0 ? '±0 pp' : signed(d, `${money.format(d)} pp`);
}

export type Direction = 'up' | 'down' | 'same';
export const direction = ({ current, previous }: Compared): Direction => (current > previous ? 'up' : current < previous ? 'down' : 'same');
