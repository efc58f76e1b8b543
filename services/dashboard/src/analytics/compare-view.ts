import { changeOf, type ChangeKind } from '../html/format.js';
import { html, type RawHtml } from '../html/html.js';
import type { DateRange } from '../stats/window.js';

/**
 * The analytics page's comparison with the previous period (`compare=previous` of the JSON API;
 * see the app pages in services/dashboard/docs/api.md): each headline figure's change (changeOf,
 * html/format.ts, the digest's rule too), and the link that turns the comparison off or on. The
 * arrow and the sign carry the meaning, the colour only repeats it.
 */
const ARROW: Record<ChangeKind, string> = { up: '▲', down: '▼', same: '', new: '▲', none: '' };

/**
 * One figure's change, as the second `<dd>` of its stat: arrow, percentage, the previous value.
 * `lowerIsBetter` (abandoned carts): the arrow still says up or down, the colour says worse or better.
 */
export function changeBadge(current: number | string, previous: number | string, previousShown: string, lowerIsBetter = false): RawHtml {
  const c = changeOf(Number(current), Number(previous));
  const arrow = ARROW[c.kind] ? html`<span aria-hidden="true">${ARROW[c.kind]}</span> ` : '';
  // The change and the previous value each stay on one line; a narrow box wraps between them.
  const context = c.kind === 'none'
    ? html`<span class="sr-only"> no change, none in either period</span>`
    : html` <span class="prev">vs ${previousShown}</span><span class="sr-only"> in the previous period</span>`;
  return html`<dd class="change ${c.kind}${lowerIsBetter ? ' lower-is-better' : ''}" data-change="${c.kind}" data-percent="${c.percent ?? ''}" data-previous="${previous}"><span class="pct">${arrow}${c.text}</span>${context}</dd>`;
}

/** The query string of a window, with `compare=none` when the comparison is off, and what else the page keeps (its filter). */
export function frameQuery(frame: number | DateRange, compare: boolean, kept: [string, string][] = []): string {
  const q = new URLSearchParams(typeof frame === 'number' ? { timeframe: String(frame) } : { from: frame.from, to: frame.to });
  if (!compare) q.set('compare', 'none');
  for (const [k, v] of kept) q.append(k, v);
  return q.toString();
}

/** The sentence under the window's dates: what is compared, and the link that switches it. */
export function compareLine(action: string, frame: number | DateRange, previous: { start_date: string; end_date: string; timeframe_days: number } | null, kept: [string, string][] = []): RawHtml {
  if (!previous) return html` · <a href="${action}?${frameQuery(frame, true, kept)}" data-compare-toggle="on">Compare with the previous period</a>`;
  const days = `${previous.timeframe_days} ${previous.timeframe_days === 1 ? 'day' : 'days'}`;
  return html` · compared with the previous ${days}, <span class="nowrap" data-previous-window>${previous.start_date} to ${previous.end_date}</span> · <a href="${action}?${frameQuery(frame, false, kept)}" data-compare-toggle="off">Hide the comparison</a>`;
}
