import { MAX_TIMEFRAME_DAYS } from '@chatlytics/core';
import type { FieldErrors } from '../http/errors.js';
import { html, raw, type RawHtml } from '../html/html.js';
import type { DateRange } from '../stats/window.js';
import { percent, round2 } from '../stats/numbers.js';
import type { Answer } from '../stats/run.js';
import type { cart, engagement, overview, popupMetrics, purchases, reconciliation, setAsidePurchases, timeseries } from '../stats/statistics/index.js';
import { fmtDec, fmtInt, fmtPercent } from '../html/format.js';
import { conversionNote, fromEur, moneyIn, shownCurrency, type Money } from '../html/money.js';
import { jsonBlock } from '../html/layout.js';
import { changeBadge, compareLine } from './compare-view.js';
import { keptFields, keptSuffix } from './segment-view.js';
import { barChart, intervalChart } from './svg-charts.js';
import { setAsideNote } from '../chatbots/tracking-settings-views.js';
import { liftLead, type LiftAnswer } from './lift-view.js';
import { attributionNote, reconciliationNote } from './attribution-note.js';

export interface AnalyticsData {
  overview: Answer<typeof overview>;
  engagement: Answer<typeof engagement>;
  popup: Answer<typeof popupMetrics>;
  purchases: Answer<typeof purchases>;
  timeseries: Answer<typeof timeseries>;
  cart: Answer<typeof cart>;
  /** Purchases accepted but not counted (implausible, unverified): a note under revenue when there are any. */
  chatbotId?: string;
  setAside?: Answer<typeof setAsidePurchases>;
  /** The lift statistic, when the chatbot runs a holdout: the page leads with it. */
  lift?: LiftAnswer;
  reconciliation?: Answer<typeof reconciliation>;
}

/** The window's page: where its links point, and the previous period's statistics when compared. */
export interface AnalyticsPage {
  action: string;
  frame: number | DateRange;
  downloads: CsvLink;
  /** The headline row (headline-view.ts) and the compact bar of controls, shown first. */
  headline?: RawHtml;
  controls?: RawHtml;
  /** `null`: the comparison is off. */
  previous: AnalyticsData | null;
  /** The filter and grouping every link of the page keeps (segment-view.ts). */
  kept?: [string, string][];
  /** The sources table (segment-view.ts), after the overview. */
  sources?: RawHtml;
  /** The chatbot's display currency: every amount is shown in it (html/money.ts), `data-value` stays the API's EUR. */
  currency: string;
  /** The series by hour (timeseries, bucket=hour) with its previous period: the 24-hour window draws it instead of days. */
  hourly?: Answer<typeof timeseries> & { previous: Answer<typeof timeseries> | null };
  /** Today's UTC date: its day in the series is partial, and says so. */
  today?: string;
}

type SeriesPoint = { key: string; visitors: number; conversations: number; purchases: number; revenue: number };
const byDay = (days: AnalyticsData['timeseries']['days']): SeriesPoint[] => days.map(({ date, ...r }) => ({ key: date, ...r }));
const byHour = (hours: AnalyticsData['timeseries']['hours']): SeriesPoint[] => (hours ?? []).map(({ hour, ...r }) => ({ key: hour, ...r }));

export const TIMEFRAME_CHOICES = [1, 7, 30, 90];

/**
 * One number with its key in the JSON API (`data-stat`) and its exact value (`data-value`):
 * the end-to-end test compares them with the API's answer for the same window. With the
 * previous period's value, its change follows (compare-view.ts).
 */
export function stat(label: string, key: string, value: number | string, shown: string, previous?: { value: number | string; shown: string; lowerIsBetter?: boolean }): RawHtml {
  const change = previous ? changeBadge(value, previous.value, previous.shown, previous.lowerIsBetter) : '';
  return html`<div class="stat"><dt>${label}</dt><dd data-stat="${key}" data-value="${value}">${shown}</dd>${change}</div>`;
}

/** The timeframe picker: four common windows as links, any 1–MAX_TIMEFRAME_DAYS days in the form. */
export function timeframeForm(action: string, days: number | null, error: string | null, compareOff = false, kept: [string, string][] = []): RawHtml {
  const off = (compareOff ? '&compare=none' : '') + keptSuffix(kept);
  return html`<form class="timeframe" method="get" action="${action}">${compareOff ? COMPARE_OFF_FIELD : ''}${keptFields(kept)}
<span class="label" id="tf-quick">Timeframe</span>
<span class="quick" role="group" aria-labelledby="tf-quick">${TIMEFRAME_CHOICES.map((d) => html`<a href="${action}?timeframe=${d}${off}"${d === days ? html` aria-current="true"` : ''}>${d === 1 ? '24 hours' : `${d} days`}</a>`)}</span>
<label for="timeframe">Days (1–${MAX_TIMEFRAME_DAYS})</label>
<input id="timeframe" name="timeframe" type="number" min="1" max="${MAX_TIMEFRAME_DAYS}" step="1" inputmode="numeric" value="${days ?? ''}"${error ? html` aria-invalid="true" aria-describedby="timeframe-error"` : ''}>
<button type="submit">Show</button>
${error ? html`<p class="field-error" id="timeframe-error" role="alert">${error}</p>` : ''}
</form>`;
}

/** A form of a page whose comparison is off keeps it off. */
const COMPARE_OFF_FIELD = html`<input type="hidden" name="compare" value="none">`;

/** One date input of the range form, its error tied to it. */
function dateField(name: 'from' | 'to', label: string, value: string, today: string, errors: FieldErrors | null): RawHtml {
  const messages = errors?.[name] ?? [];
  // Label and field in one box, so that on a phone they wrap to the next line together.
  return html`<span class="pair"><label for="${name}">${label}</label>
<input id="${name}" name="${name}" type="date" min="1900-01-01" max="${today}" value="${value}"${messages.length ? html` aria-invalid="true" aria-describedby="${name}-error"` : ''}></span>`;
}

/**
 * The custom range: whole UTC days `from` to `to` (the JSON API's `from`/`to`). The values come
 * back as typed when the range is refused, with each field's messages under the form.
 */
export function rangeForm(action: string, range: DateRange, today: string, errors: FieldErrors | null, compareOff = false, kept: [string, string][] = []): RawHtml {
  const messages = (name: 'from' | 'to') => (errors?.[name] ?? []).join(' ');
  return html`<form class="timeframe range" method="get" action="${action}" aria-labelledby="range-label">${compareOff ? COMPARE_OFF_FIELD : ''}${keptFields(kept)}
<span class="label" id="range-label">Date range (UTC)</span>
${dateField('from', 'From', range.from, today, errors)}
${dateField('to', 'To', range.to, today, errors)}
<button type="submit">Show range</button>
${(['from', 'to'] as const).map((name) => (messages(name) ? html`<p class="field-error" id="${name}-error" role="alert">${messages(name)}</p>` : raw('')))}
</form>`;
}

/** A block's CSV download: the block's statistic for the window shown. */
export type CsvLink = (name: string, label: string, extra?: [string, string][]) => RawHtml;

/**
 * The CSV downloads of the window shown, one in each block: links to the JSON routes with
 * `format=csv`, which accept the page's session cookie (a GET needs no origin check), so the file
 * holds the very numbers the API answers for the same window.
 */
export function csvLinks(chatbotId: string, frame: number | DateRange, kept: [string, string][] = []): CsvLink {
  // The page's filter (and the sources table's grouping) too: a file holds what the page shows.
  const window: [string, string][] = typeof frame === 'number' ? [['timeframe', String(frame)]] : [['from', frame.from], ['to', frame.to]];
  // `by` is the sources table's alone (the other statistics would ignore it): a file's address says what it holds.
  const q = (name: string, extra: [string, string][]) => new URLSearchParams([['chatbot_id', chatbotId], ...window, ...kept.filter(([k]) => name === 'sources' || k !== 'by'), ...extra, ['format', 'csv']]);
  return (name, label, extra = []) => html`<a class="button secondary csv" href="/api/dashboard/analytics/stats/${name}?${q(name, extra).toString()}" download data-csv="${name}">${label} CSV</a>`;
}

/** A block's heading with its downloads at the right. */
const blockHead = (id: string, title: string, ...links: RawHtml[]) =>
  html`<div class="block-head"><h2 id="${id}">${title}</h2>${links.length ? html`<span class="block-csv">${links}</span>` : ''}</div>`;

/** The summed row names how many versions it holds (services/dashboard/docs/statistics.md, popup-metrics). */
const versionLabel = (m: { popup_version: string; other_versions?: number }) =>
  m.other_versions === undefined ? m.popup_version : `${m.popup_version}: ${m.other_versions} more versions`;

export function analyticsBody(d: AnalyticsData, page: AnalyticsPage): RawHtml {
  const { overview: o, engagement: e, popup: p, purchases: u, timeseries: ts, cart: c } = d;
  const prev = page.previous;
  const isRange = typeof page.frame !== 'number';
  const length = `${o.timeframe_days} ${o.timeframe_days === 1 ? 'day' : 'days'}`;
  /** A headline figure: its value in this window and, when compared, in the previous period. */
  const figure = <B, V extends number | string>(label: string, key: string, pick: (b: B) => V, of: (a: AnalyticsData) => B, show: (v: V) => string, lowerIsBetter = false) => {
    const value = pick(of(d));
    return stat(label, key, value, show(value), prev ? { value: pick(of(prev)), shown: show(pick(of(prev))), lowerIsBetter } : undefined);
  };
  const O = (a: AnalyticsData) => a.overview;
  const E = (a: AnalyticsData) => a.engagement;
  const P = (a: AnalyticsData) => a.popup;
  const U = (a: AnalyticsData) => a.purchases;
  const C = (a: AnalyticsData) => a.cart;
  const str = (v: string) => v;
  const csv = page.downloads;
  const money = moneyIn(page.currency);
  const note = conversionNote(page.currency);
  // The chart draws the shown currency too: its data block holds the converted revenue.
  // The JSON block holds the API's points (`date`, or `hour` by hour), revenue converted.
  const chartPoints = <P extends { revenue: number }>(points: readonly P[]) => points.map((r) => ({ ...r, revenue: round2(fromEur(r.revenue, page.currency)) }));
  const hourly = page.hourly;
  const series = hourly ? byHour(hourly.hours) : byDay(ts.days);
  const previousSeries = hourly ? (hourly.previous ? byHour(hourly.previous.hours) : null) : (prev ? byDay(prev.timeseries.days) : null);
  const unit = hourly ? 'hour' : 'day';
  const seriesTitle = hourly ? 'Hour by hour' : 'Day by day';
  const apiSeries = hourly ? hourly.hours ?? [] : ts.days;
  const apiPrevious = hourly ? hourly.previous?.hours ?? null : prev?.timeseries.days ?? null;

  return html`<p class="window">${o.start_date} to ${o.end_date} (UTC), ${isRange ? length : `last ${length}`}${compareLine(page.action, page.frame, prev ? prev.overview : null, page.kept)}</p>
${note ? html`<p class="hint" data-currency-note>${note}</p>` : ''}
${page.headline ?? ''}${d.lift ? liftLead(d.lift, money) : ''}${page.controls ?? ''}
<section aria-labelledby="h-overview">${blockHead('h-overview', 'Overview', csv('overview', 'Overview'), csv('engagement', 'Engagement'))}
<dl class="stats">
${figure('Analysed conversations', 'overview.total_conversations', (b) => b.total_conversations, O, fmtInt)}
${figure('AI messages', 'overview.total_ai_messages', (b) => b.total_ai_messages, O, fmtInt)}
${figure('Hours saved', 'overview.saved_hours', (b) => b.saved_hours, O, str)}
${figure('Visitors', 'engagement.total_users', (b) => b.total_users, E, fmtInt)}
</dl>
<p class="hint" data-vocabulary><strong>Chats started</strong> counts the chats the tracker saw open on the shop (tracked events, as in the headline, the popups and the day-by-day chart); <strong>analysed conversations</strong> counts the stored transcripts with a message in these days, which the insights are read from. A chat can start without being analysed, so the two differ.</p></section>
${page.sources ?? ''}

<section aria-labelledby="h-series">${blockHead('h-series', seriesTitle, csv('timeseries', seriesTitle, hourly ? [['bucket', 'hour']] : []))}
<div class="series" data-series="timeseries" data-bucket="${unit}" data-currency="${shownCurrency(page.currency)}" aria-hidden="true"></div>
${jsonBlock('timeseries-data', chartPoints<{ revenue: number }>(apiSeries))}
${apiPrevious && prev ? html`${jsonBlock('timeseries-previous-data', chartPoints<{ revenue: number }>(apiPrevious))}
<p class="hint">Dashed lines: the previous period (${prev.timeseries.start_date} to ${prev.timeseries.end_date}), its first ${unit} drawn under this window's first ${unit}.</p>` : ''}
${!hourly && page.today && series.at(-1)?.key === page.today ? html`<p class="hint" data-partial-day>The last day, today (${page.today}), is partial: its figures so far.</p>` : ''}
${seriesTable('Table', series, unit, money, page.today)}
${previousSeries ? seriesTable('Table of the previous period', previousSeries, unit, money) : ''}
</section>

<section aria-labelledby="h-funnel">${blockHead('h-funnel', 'Engagement funnel', csv('cart', 'Cart'))}
${barChart('Engagement funnel: visitors, approached, opened, chatted, added to cart, went to cart, bought', [
    { label: 'Visitors', value: e.total_users, note: '100 %' },
    { label: 'Approached (popup)', value: e.total_users_approached, note: fmtPercent(e.approached_ratio) },
    { label: 'Opened the chat', value: e.total_users_opened, note: fmtPercent(e.opened_ratio) },
    { label: 'Chatted', value: e.total_users_chatted, note: fmtPercent(e.chatted_ratio) },
    ...cartSteps(c),
  ], fmtInt)}
<dl class="stats">
${figure('Approached', 'engagement.approached_ratio', (b) => b.approached_ratio, E, fmtPercent)}
${figure('Opened', 'engagement.opened_ratio', (b) => b.opened_ratio, E, fmtPercent)}
${figure('Chatted', 'engagement.chatted_ratio', (b) => b.chatted_ratio, E, fmtPercent)}
${figure('Added to cart', 'cart.users_added_to_cart', (b) => b.users_added_to_cart, C, fmtInt)}
${figure('Cart conversion', 'cart.cart_conversion_rate', (b) => b.cart_conversion_rate, C, fmtPercent)}
${figure('Abandoned carts after chat', 'cart.chatted.users_abandoned', (b) => b.chatted.users_abandoned, C, fmtInt, true)}
${figure('Abandoned after chat, value', 'cart.chatted.abandoned_value', (b) => b.chatted.abandoned_value, C, money, true)}
</dl>
<p class="abandoned" data-abandoned-after-chat>Abandoned carts after chat: ${fmtInt(c.chatted.users_abandoned)}, ${money(c.chatted.abandoned_value)} value
(without chat: ${fmtInt(c.not_chatted.users_abandoned)}, ${money(c.not_chatted.abandoned_value)}). A cart is abandoned when the visitor added to it in this window and bought nothing in it.</p>
</section>

<section aria-labelledby="h-popup">${blockHead('h-popup', 'Popups', csv('popup-metrics', 'Popups'))}
${p.metrics.length ? barChart('Popup open rate per version', p.metrics.map((m) => ({ label: versionLabel(m), value: m.open_rate, note: `${fmtInt(m.popup_opened_count)} of ${fmtInt(m.popup_displayed_count)}` })), fmtPercent) : html`<p>No popup was shown in this window.</p>`}
<div class="scroll" tabindex="0" role="region" aria-label="Popups (table, scrolls sideways)"><table class="cards"><thead><tr><th scope="col">Version</th><th scope="col">Shown</th><th scope="col">Opened</th><th scope="col">Open rate</th></tr></thead>
<tbody>${p.metrics.map((m) => html`<tr><th scope="row">${versionLabel(m)}</th><td data-label="Shown">${fmtInt(m.popup_displayed_count)}</td><td data-label="Opened">${fmtInt(m.popup_opened_count)}</td><td data-label="Open rate">${fmtPercent(m.open_rate)}</td></tr>`)}</tbody></table></div>
<dl class="stats">
${figure('Chats started', 'popup-metrics.conversations.total', (b) => b.conversations.total, P, fmtInt)}
${figure('From a popup', 'popup-metrics.conversations.from_popup', (b) => b.conversations.from_popup, P, fmtInt)}
${figure('From the chat button', 'popup-metrics.conversations.from_chat_button', (b) => b.conversations.from_chat_button, P, fmtInt)}
${figure('Popup share', 'popup-metrics.conversations.popup_ratio', (b) => b.conversations.popup_ratio, P, fmtPercent)}
</dl></section>

<section aria-labelledby="h-purchases">${blockHead('h-purchases', 'Purchases and revenue', csv('purchases', 'Purchases'))}
${attributionNote(u.attribution, d.chatbotId)}
<dl class="stats">
${figure('Revenue', 'purchases.total_revenue_purchased', (b) => b.total_revenue_purchased, U, money)}
${figure('Revenue after chat', 'purchases.total_revenue_chatted_purchased', (b) => b.total_revenue_chatted_purchased, U, money)}
${figure('Buyers', 'purchases.total_users_purchased', (b) => b.total_users_purchased, U, fmtInt)}
${figure('Buyers after chat', 'purchases.total_users_chatted_purchased', (b) => b.total_users_chatted_purchased, U, fmtInt)}
${figure('Conversion with chat', 'purchases.conversion_rate_with_chat', (b) => b.conversion_rate_with_chat, U, fmtPercent)}
${figure('Conversion without chat, of all visitors', 'purchases.conversion_rate_without_chat', (b) => b.conversion_rate_without_chat, U, fmtPercent)}
${figure('Order value with chat', 'purchases.aov_with_chat', (b) => b.aov_with_chat, U, money)}
${figure('Order value without chat', 'purchases.aov_without_chat', (b) => b.aov_without_chat, U, money)}
</dl>${d.setAside ? setAsideNote(d.chatbotId ?? '', d.setAside) : ''}${d.reconciliation ? reconciliationNote(d.reconciliation) : ''}</section>
${'ab_test' in u ? abBlock(u.ab_test, money) : ''}`;
}

/** The funnel's cart steps: of the visitors, who added to the cart, went to it, and bought after adding. */
function cartSteps(c: AnalyticsData['cart']) {
  const share = (n: number) => fmtPercent(percent(n, c.total_users));
  return [
    { label: 'Added to cart', value: c.users_added_to_cart, note: share(c.users_added_to_cart) },
    { label: 'Went to the cart', value: c.users_went_to_cart, note: share(c.users_went_to_cart) },
    { label: 'Added and bought', value: c.users_added_and_purchased, note: `${fmtPercent(c.cart_conversion_rate)} of carts` },
  ];
}

/** The series as a table (the chart's numbers as text), folded; today's day marked partial. */
function seriesTable(summary: string, points: SeriesPoint[], unit: 'day' | 'hour', money: Money, today?: string): RawHtml {
  const label = (key: string) => (unit === 'hour' ? `${key.slice(0, 10)} ${key.slice(11, 16)} UTC` : key === today ? `${key} (today, so far)` : key);
  return html`<details><summary>${summary}</summary><div class="scroll" tabindex="0" role="region" aria-label="${summary}: ${unit} by ${unit} (table, scrolls sideways)"><table><thead><tr><th scope="col">${unit === 'hour' ? 'Hour' : 'Day'}</th><th scope="col">Visitors</th><th scope="col">Chats started</th><th scope="col">Purchases</th><th scope="col">Revenue</th></tr></thead>
<tbody>${points.map((r) => html`<tr><th scope="row">${label(r.key)}</th><td>${fmtInt(r.visitors)}</td><td>${fmtInt(r.conversations)}</td><td>${fmtInt(r.purchases)}</td><td>${money(r.revenue)}</td></tr>`)}</tbody></table></div></details>`;
}

type AbTest = Extract<AnalyticsData['purchases'], { ab_test: unknown }>['ab_test'];

function abBlock(ab: AbTest, money: Money): RawHtml {
  const groups = [['Control', 'control', ab.control], ['Test', 'test', ab.test]] as const;
  const c = ab.comparison;
  return html`<section aria-labelledby="h-ab"><h2 id="h-ab">A/B test</h2>
${c.sample_ratio_mismatch ? html`<div class="banner danger" role="alert"><strong>Assignment looks broken: do not trust this comparison.</strong>
The groups' sizes (${fmtInt(ab.control.visitors)} vs ${fmtInt(ab.test.visitors)} visitors) are too far from the intended 50/50 split to be chance (p = ${c.sample_ratio_p_value}); check how visitors are assigned and tracked.</div>` : ''}
${intervalChart('Conversion rate per group with its 95 % interval', groups.map(([label, , g]) => ({
    label, value: g.conversion_rate, lower: g.conversion_rate_ci95.lower, upper: g.conversion_rate_ci95.upper,
  })))}
<div class="scroll" tabindex="0" role="region" aria-label="A/B groups (table, scrolls sideways)"><table class="cards"><thead><tr><th scope="col">Group</th><th scope="col">Visitors</th><th scope="col">Orders</th><th scope="col">Conversion</th><th scope="col">95 % interval</th><th scope="col">Order value</th><th scope="col">Revenue per visitor</th></tr></thead>
<tbody>${groups.map(([label, key, g]) => html`<tr><th scope="row">${label}</th><td data-label="Visitors">${fmtInt(g.visitors)}</td><td data-label="Orders">${fmtInt(g.orders)}</td>
<td data-label="Conversion" data-stat="purchases.ab_test.${key}.conversion_rate" data-value="${g.conversion_rate}">${fmtPercent(g.conversion_rate)}</td>
<td data-label="95 % interval">${fmtDec(g.conversion_rate_ci95.lower)}–${fmtDec(g.conversion_rate_ci95.upper)} %</td><td data-label="Order value">${money(g.aov)}</td><td data-label="Revenue per visitor">${money(g.arpu)}</td></tr>`)}</tbody></table></div>
<dl class="stats">
${stat('p-value (difference in conversion)', 'purchases.ab_test.comparison.p_value', c.p_value, String(c.p_value))}
</dl>
<p class="hint">${c.p_value < 0.05 ? 'The difference in conversion is unlikely to be chance (p < 0.05).' : 'The difference in conversion may well be chance (p ≥ 0.05).'}</p>
</section>`;
}
