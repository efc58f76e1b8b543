import { html, type RawHtml } from '../html/html.js';

/**
 * Charts drawn on the server as SVG: they need no script, print, scale with the page, and use
 * attributes, not style, so the pages' CSP holds. Every chart has a text table next to it (the
 * numbers for screen readers and for copying); the SVG itself is labelled by its title.
 */
export interface Bar { label: string; value: number; note?: string }

// Narrow on purpose: a phone shows the chart at about its own size, so the text stays readable.
const W = 420;
const ROW_H = 46;

/** Horizontal bars scaled to the largest value, each labelled above; `note` (e.g. a ratio) follows the value. */
export function barChart(title: string, bars: Bar[], format: (v: number) => string): RawHtml {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const plotW = W - 4;
  const h = bars.length * ROW_H + 4;
  return html`<svg class="chart" viewBox="0 0 ${W} ${h}" role="img" aria-label="${title}" preserveAspectRatio="xMinYMin meet">
${bars.map((b, i) => {
    const y = 2 + i * ROW_H;
    const w = Math.max(b.value > 0 ? 2 : 0, (b.value / max) * plotW);
    return html`<text x="0" y="${y + 15}" class="axis"><tspan class="strong">${truncate(b.label, 28)}</tspan> ${format(b.value)}${b.note ? ` · ${b.note}` : ''}</text>
<rect x="0" y="${y + 22}" width="${w.toFixed(1)}" height="16" rx="3" class="bar bar-${i % 4}"></rect>`;
  })}
</svg>`;
}

const LABEL_W = 70;

export interface Interval { label: string; value: number; lower: number; upper: number }

/**
 * Points with their 95 % intervals on one 0–max percent axis: two intervals that overlap a lot
 * are visibly not a clear difference, which a pair of bars would hide.
 */
export function intervalChart(title: string, rows: Interval[]): RawHtml {
  const top = Math.max(1, ...rows.map((r) => r.upper));
  const axisMax = niceCeil(top);
  const plotW = W - LABEL_W - 40;
  const x = (v: number) => LABEL_W + (v / axisMax) * plotW;
  const h = rows.length * 40 + 36;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * axisMax);
  return html`<svg class="chart" viewBox="0 0 ${W} ${h}" role="img" aria-label="${title}" preserveAspectRatio="xMinYMin meet">
${ticks.map((t) => html`<line x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="4" y2="${h - 26}" class="grid"></line>
<text x="${x(t).toFixed(1)}" y="${h - 8}" text-anchor="middle" class="axis">${fmt(t)} %</text>`)}
${rows.map((r, i) => {
    const y = 22 + i * 40;
    return html`<text x="${LABEL_W - 8}" y="${y + 5}" text-anchor="end" class="axis">${r.label}</text>
<line x1="${x(r.lower).toFixed(1)}" x2="${x(r.upper).toFixed(1)}" y1="${y}" y2="${y}" class="interval"></line>
<line x1="${x(r.lower).toFixed(1)}" x2="${x(r.lower).toFixed(1)}" y1="${y - 7}" y2="${y + 7}" class="interval"></line>
<line x1="${x(r.upper).toFixed(1)}" x2="${x(r.upper).toFixed(1)}" y1="${y - 7}" y2="${y + 7}" class="interval"></line>
<circle cx="${x(r.value).toFixed(1)}" cy="${y}" r="6" class="point bar-${i % 4}"></circle>`;
  })}
</svg>`;
}

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));
const truncate = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** 1, 2, 5 × 10^k at or above v: round axis ends. */
export function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5, 10].map((m) => m * p).find((c) => c >= v) ?? 10 * p;
}
