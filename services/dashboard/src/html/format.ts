/**
 * How the pages and the e-mails write numbers (English, thousands separators; money: money.ts)
 * and a figure's change against the previous period. The API's numbers are already rounded to 2
 * decimals; these only group them for reading.
 */
const INT = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const DEC = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const fmtInt = (v: number) => INT.format(v);
export const fmtPercent = (v: number) => `${DEC.format(v)} %`;
export const fmtDec = (v: number) => DEC.format(v);

export type ChangeKind = 'up' | 'down' | 'same' | 'new' | 'none';
export interface Change { kind: ChangeKind; /** Relative change in percent, 1 decimal; absent for `new` and `none`. */ percent?: number; text: string }

const PCT = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });
const PCT_ONE_DECIMAL = new Intl.NumberFormat('en', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/**
 * `current` against `previous`, the one rule of the analytics page and the weekly digest: both 0
 * → `–` (nothing to compare); previous 0 → `new`; equal → `±0 %`; else (current − previous) /
 * |previous| × 100, shown with its sign and at most 1 decimal (`oneDecimal`: always 1, as the
 * e-mail writes it). A change that rounds to 0.0 keeps its direction (▲ +0 %): it is a change,
 * however small.
 */
export function changeOf(current: number, previous: number, opts: { oneDecimal?: boolean } = {}): Change {
  if (current === previous) return current === 0 ? { kind: 'none', text: '–' } : { kind: 'same', percent: 0, text: '±0 %' };
  if (previous === 0) return { kind: 'new', text: 'new' };
  const percent = Math.round(((current - previous) / Math.abs(previous)) * 1000) / 10;
  const shown = (opts.oneDecimal ? PCT_ONE_DECIMAL : PCT).format(Math.abs(percent));
  return current > previous ? { kind: 'up', percent, text: `+${shown} %` } : { kind: 'down', percent, text: `−${shown} %` };
}

/** Which way a change went: `new` is up from nothing, `none` no change at all. */
export const directionOf = (c: Change): 'up' | 'down' | 'same' => (c.kind === 'new' ? 'up' : c.kind === 'none' ? 'same' : c.kind);

/** A rate's change in percentage points: "+1.25 pp", "−0.50 pp", "±0 pp". */
export function pointChange(current: number, previous: number): string {
  const d = Math.round((current - previous) * 100) / 100;
  return d === 0 ? '±0 pp' : d > 0 ? `+${DEC.format(d)} pp` : `−${DEC.format(-d)} pp`;
}

/**
 * A count's or an amount's change in percent. A previous value under a tenth of the current one
 * says "new" (a jump from 1 to 1,100 as "+109,900 %" tells the owner nothing); nothing in either
 * period says "—". The one notation of the analytics page's headline row and the weekly digest.
 */
export function headlineChange(current: number, previous: number): { kind: 'up' | 'down' | 'same' | 'new' | 'none'; text: string } {
  if (current === 0 && previous === 0) return { kind: 'none', text: '—' };
  if (previous <= 0 || (current > 0 && previous * 10 < current)) return { kind: 'new', text: 'new' };
  const pct = Math.round(((current - previous) / previous) * 1000) / 10;
  if (pct === 0) return { kind: 'same', text: '±0 %' };
  const shown = INT.format(Math.abs(Math.round(pct)));
  return pct > 0 ? { kind: 'up', text: `+${shown} %` } : { kind: 'down', text: `−${shown} %` };
}

