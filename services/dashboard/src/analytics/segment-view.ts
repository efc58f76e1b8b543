import { html, type RawHtml } from '../html/html.js';
import { isFiltered, SEGMENT_BY, type SegmentBy, type SegmentFilter } from '../stats/segment.js';
import type { Answer } from '../stats/run.js';
import type { sources } from '../stats/statistics/index.js';
import { fmtInt, fmtPercent } from '../html/format.js';
import type { Money } from '../html/money.js';

/**
 * The analytics page's segments (services/dashboard/docs/statistics.md, "Segments"): the filter bar and
 * the sources table. The filter, like the sources table's grouping, is part of the page's
 * address, and every link and form of the page carries it on (`keptPairs`), CSV links included.
 */
export type SourcesBody = Answer<typeof sources>;

export const BY_LABELS: Record<SegmentBy, string> = { source: 'Source', utm_campaign: 'Campaign', device: 'Device' };
const DEVICES = ['desktop', 'mobile', 'tablet'];
export const DEFAULT_BY: SegmentBy = 'source';

/** What the page keeps across its links besides the window: the filter, and the sources table's grouping when not the default. */
export interface KeptState { segment: SegmentFilter; by: SegmentBy }

export function keptPairs(k: KeptState, over: Partial<KeptState> = {}): [string, string][] {
  const segment = over.segment ?? k.segment;
  const by = over.by ?? k.by;
  const pairs = SEGMENT_BY.filter((key) => segment[key]).map((key): [string, string] => [key, segment[key]!]);
  return by === DEFAULT_BY ? pairs : [...pairs, ['by', by]];
}

/** `&a=b…` of the kept pairs, to append to a link that already has a query. */
export const keptSuffix = (pairs: [string, string][]) => (pairs.length ? `&${new URLSearchParams(pairs).toString()}` : '');

export const keptFields = (pairs: [string, string][]): RawHtml =>
  html`${pairs.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}`;

/**
 * The filter bar: source and campaign as typed (exact match), device from its three values.
 * A GET form on the page itself, keeping the window, the comparison and the grouping; "Clear"
 * drops the filter only. Empty fields mean "any".
 */
export function filterBar(action: string, windowPairs: [string, string][], k: KeptState): RawHtml {
  const s = k.segment;
  const keep = [...windowPairs, ...keptPairs(k, { segment: {} })];
  const active = SEGMENT_BY.filter((key) => s[key]);
  return html`<form class="timeframe filters" method="get" action="${action}" aria-labelledby="filter-label" data-filter-bar>${keptFields(keep)}
<span class="label" id="filter-label">Visitors</span>
<span class="pair"><label for="f-source">Source</label><input id="f-source" name="source" maxlength="255" value="${s.source ?? ''}" placeholder="any"></span>
<span class="pair"><label for="f-campaign">Campaign</label><input id="f-campaign" name="utm_campaign" maxlength="255" value="${s.utm_campaign ?? ''}" placeholder="any"></span>
<span class="pair"><label for="f-device">Device</label><select id="f-device" name="device"><option value="">any</option>${DEVICES.map((d) => html`<option value="${d}"${s.device === d ? html` selected` : ''}>${d}</option>`)}</select></span>
<button type="submit">Filter</button>
${isFiltered(s) ? html`<a href="${action}?${new URLSearchParams(keep).toString()}" data-filter-clear>Clear the filter</a>
<p class="hint" data-filter-active>Every figure below counts only the visitors whose first visit in the window has ${active.map((key, i) => html`${i ? ', ' : ''}${BY_LABELS[key].toLowerCase()} “${s[key]!}”`)}, and their events.</p>` : ''}
</form>`;
}

const shownValue = (v: string) => (v === '' ? '(none)' : v);

/**
 * The sources table: one row per value of the grouping (the 50 with the most visitors), then the
 * rest summed. Each value links to the page filtered by it; the grouping's links switch it.
 */
export function sourcesSection(action: string, windowPairs: [string, string][], k: KeptState, s: SourcesBody, money: Money, download: RawHtml = html``): RawHtml {
  const by = s.by as SegmentBy;
  const link = (over: Partial<KeptState>) => `${action}?${new URLSearchParams([...windowPairs, ...keptPairs(k, over)]).toString()}`;
  // On a phone each row is a card, each figure with its column's name (data-label).
  const figures = (r: Omit<SourcesBody['other'], 'values'>) => html`<td data-label="Visitors">${fmtInt(r.visitors)}</td><td data-label="Chatted">${fmtInt(r.chatted)}</td><td data-label="Buyers">${fmtInt(r.purchasers)}</td><td data-label="Revenue">${money(r.revenue)}</td><td data-label="Conversion with chat">${fmtPercent(r.conversion_rate_with_chat)}</td><td data-label="Conversion without chat">${fmtPercent(r.conversion_rate_without_chat)}</td>`;
  return html`<section aria-labelledby="h-sources" data-sources="${by}"><div class="block-head"><h2 id="h-sources">Where visitors come from</h2><span class="block-csv">${download}</span></div>
<div class="timeframe"><span class="label" id="by-label">Group by</span><span class="quick" role="group" aria-labelledby="by-label">${SEGMENT_BY.map((b) => html`<a href="${link({ by: b })}"${b === by ? html` aria-current="true"` : ''}>${BY_LABELS[b]}</a>`)}</span></div>
${s.rows.length ? html`<div class="scroll" tabindex="0" role="region" aria-label="${BY_LABELS[by]} (table, scrolls sideways)"><table class="cards"><thead><tr><th scope="col">${BY_LABELS[by]}</th><th scope="col">Visitors</th><th scope="col">Chatted</th><th scope="col">Buyers</th><th scope="col">Revenue</th><th scope="col">Conversion with chat</th><th scope="col">Conversion without chat</th></tr></thead>
<tbody>${s.rows.map((r) => html`<tr data-source-row="${r.value}"><th scope="row">${r.value === '' ? shownValue(r.value) : html`<a href="${link({ segment: { ...k.segment, [by]: r.value } })}" title="Show only these visitors">${r.value}</a>`}</th>${figures(r)}</tr>`)}
${s.other.values ? html`<tr data-source-row="(other)"><th scope="row">Other: ${fmtInt(s.other.values)} more</th>${figures(s.other)}</tr>` : ''}</tbody></table></div>
<p class="hint">A visitor counts under the ${BY_LABELS[by].toLowerCase()} of its first visit in the window; a value links to the page showing only its visitors.</p>` : html`<p>No visitor in this window.</p>`}
</section>`;
}
