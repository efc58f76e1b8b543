import { html, raw, type RawHtml } from '../html/html.js';
import { fmtInt, fmtPercent, headlineChange, pointChange } from '../html/format.js';
import type { Money } from '../html/money.js';
import { percent, round2 } from '../stats/numbers.js';
import type { AnalyticsData } from './analytics-view.js';

/**
 * The headline row, first on the analytics page (issue 58): what the assistant earned and whether
 * it is better or worse than before, readable in ten seconds. Each figure carries the stable
 * hooks `data-metric` and `data-value` (tests and scripts read them), its change against the
 * previous period (percentage points for rates, percent for counts and money) and a sparkline.
 */
export type HeadlineMetric = 'revenue_after_chat' | 'conversion_with_chat' | 'conversion_without_chat' | 'visitors' | 'chats_started';

/** Inputs of the row: the window's statistics and, when compared, the previous period's. */
type Figures = Pick<AnalyticsData, 'purchases' | 'engagement' | 'popup' | 'timeseries'>;

/** Conversion of the visitors who did not chat: their buyers over them (not over all visitors). */
export function conversionWithoutChat(f: Figures): { rate: number; base: number } {
  const u = f.purchases;
  const base = Math.max(0, u.total_users - u.total_users_chatted);
  return { rate: round2(percent(Math.max(0, u.total_users_purchased - u.total_users_chatted_purchased), base)), base };
}

/** A rate's change in percentage points; "—" when both are 0. */
function rateChange(current: number, previous: number): { kind: 'up' | 'down' | 'same' | 'none'; text: string } {
  if (current === 0 && previous === 0) return { kind: 'none', text: '—' };
  const text = pointChange(current, previous);
  return { kind: current > previous ? 'up' : current < previous ? 'down' : 'same', text };
}

/**
 * A small line of the values, oldest first, scaled to its own range; decorative (the figure and
 * its change are the text), so hidden from assistive technology.
 */
export function sparkline(values: number[]): RawHtml {
  if (values.length < 2) return html``;
  const w = 96;
  const h = 24;
  const max = Math.max(...values);
  const min = Math.min(...values, 0);
  const span = max - min || 1;
  const points = values.map((v, i) => `${round2((i / (values.length - 1)) * w)},${round2(h - 2 - ((v - min) / span) * (h - 4))}`).join(' ');
  return html`<svg class="spark" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" aria-hidden="true" focusable="false" data-points="${values.length}"><polyline points="${points}" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round"/></svg>`;
}

interface Headline {
  metric: HeadlineMetric;
  label: string;
  value: number;
  shown: string;
  /** What the figure is of (its base), under it. */
  note: string;
  /** A note a phone leaves out (the label says enough); a base is never left out. */
  optionalNote?: boolean;
  change: { kind: string; text: string } | null;
  previousShown?: string;
  series: number[];
}

/** The five headlines of a window (and its previous period). */
export function headlines(d: Figures, prev: Figures | null, today: string | undefined, money: Money): Headline[] {
  const u = d.purchases;
  // Today's partial day would drop every line at its end: the lines stop at yesterday.
  const days = d.timeseries.days.filter((r) => r.date !== today);
  const without = conversionWithoutChat(d);
  const pw = prev ? conversionWithoutChat(prev) : null;
  const share = percent(u.total_revenue_chatted_purchased, u.total_revenue_purchased);
  // Rates and revenue after chat have no day-by-day series: their line is the previous period to this one.
  const two = (now: number, before: number | undefined) => (before === undefined ? [] : [before, now]);
  return [
    {
      metric: 'revenue_after_chat', label: 'Revenue after chat', value: u.total_revenue_chatted_purchased, shown: money(u.total_revenue_chatted_purchased),
      note: `${fmtPercent(round2(share))} of all revenue (${money(u.total_revenue_purchased)})`,
      change: prev ? headlineChange(u.total_revenue_chatted_purchased, prev.purchases.total_revenue_chatted_purchased) : null,
      previousShown: prev ? money(prev.purchases.total_revenue_chatted_purchased) : undefined,
      series: two(u.total_revenue_chatted_purchased, prev?.purchases.total_revenue_chatted_purchased),
    },
    {
      metric: 'conversion_with_chat', label: 'Conversion with chat', value: u.conversion_rate_with_chat, shown: fmtPercent(u.conversion_rate_with_chat),
      note: `of ${fmtInt(u.total_users_chatted)} visitors who chatted`,
      change: prev ? rateChange(u.conversion_rate_with_chat, prev.purchases.conversion_rate_with_chat) : null,
      previousShown: prev ? fmtPercent(prev.purchases.conversion_rate_with_chat) : undefined,
      series: two(u.conversion_rate_with_chat, prev?.purchases.conversion_rate_with_chat),
    },
    {
      metric: 'conversion_without_chat', label: 'Conversion without chat', value: without.rate, shown: fmtPercent(without.rate),
      note: `of ${fmtInt(without.base)} visitors who did not chat`,
      change: pw ? rateChange(without.rate, pw.rate) : null,
      previousShown: pw ? fmtPercent(pw.rate) : undefined,
      series: two(without.rate, pw?.rate),
    },
    {
      metric: 'visitors', label: 'Visitors', value: d.engagement.total_users, shown: fmtInt(d.engagement.total_users),
      note: 'distinct visitors in the window', optionalNote: true,
      change: prev ? headlineChange(d.engagement.total_users, prev.engagement.total_users) : null,
      previousShown: prev ? fmtInt(prev.engagement.total_users) : undefined,
      series: days.map((r) => r.visitors),
    },
    {
      metric: 'chats_started', label: 'Chats started', value: d.popup.conversations.total, shown: fmtInt(d.popup.conversations.total),
      note: 'chats the tracker saw open', optionalNote: true,
      change: prev ? headlineChange(d.popup.conversations.total, prev.popup.conversations.total) : null,
      previousShown: prev ? fmtInt(prev.popup.conversations.total) : undefined,
      series: days.map((r) => r.conversations),
    },
  ];
}

const ARROW: Record<string, string> = { up: '▲', down: '▼', new: '▲' };

/** The row: one card per headline. */
export function headlineRow(d: Figures, prev: Figures | null, today: string, money: Money): RawHtml {
  return html`<section class="headlines" aria-label="Headline figures"><dl class="headline-row">
${headlines(d, prev, today, money).map((h) => html`<div class="headline" data-metric="${h.metric}" data-value="${h.value}">
<dt>${h.label}</dt>
<dd class="value">${h.shown}</dd>
${h.change ? html`<dd class="change ${h.change.kind}" data-change="${h.change.kind}">${ARROW[h.change.kind] ? html`<span aria-hidden="true">${ARROW[h.change.kind]}</span> ` : ''}${h.change.text}<span class="prev"> vs ${h.previousShown ?? ''}</span></dd>` : raw('')}
<dd class="note${h.optionalNote ? ' optional' : ''}">${h.note}</dd>
<dd class="line">${sparkline(h.series)}</dd>
</div>`)}
</dl></section>`;
}
