import { stateBadge } from '../html/components.js';
import { html, raw, type RawHtml } from '../html/html.js';
import { fmtInt, headlineChange } from '../html/format.js';
import { conversionNote, moneyIn, shownCurrency, type Money } from '../html/money.js';
import { OVERVIEW_DAYS, type ChatbotFigures } from './account-overview.js';
import { jsonBlock } from '../html/layout.js';

export interface ChatbotListRow { id: string; name: string; status: string; conversations: number; lastActive: string; events24h: number; figures: ChatbotFigures; displayCurrency: string }

const ARROW: Record<string, string> = { up: '▲', down: '▼', new: '▲' };

/** A figure and its change against the previous period, in the headline row's notation. */
function figureCell(label: string, stat: string, current: number, previous: number, shown: (v: number) => string): RawHtml {
  const change = headlineChange(current, previous);
  return html`<td data-label="${label}" data-stat="${stat}" data-value="${current}" data-previous="${previous}" data-change="${change.kind}"><span class="figure">${shown(current)} <span class="change ${change.kind}">${ARROW[change.kind] ? html`<span aria-hidden="true">${ARROW[change.kind]}</span> ` : ''}${change.text}<span class="sr-only"> against the ${OVERVIEW_DAYS} days before (${shown(previous)})</span></span></span></td>`;
}

const figureCells = (f: ChatbotFigures, money: Money) => html`${figureCell('Visitors', 'chatbots.visitors', f.current.visitors, f.previous.visitors, fmtInt)}
${figureCell('Revenue after chat', 'chatbots.revenue_after_chat', f.current.revenue, f.previous.revenue, money)}`;

/**
 * The currency of the account's totals: the chatbots' own when they all share one; EUR (what
 * the amounts are stored in) when they differ, since kronor and złoty do not add up.
 */
export function totalsCurrency(rows: { displayCurrency: string }[]): { currency: string; mixed: boolean } {
  const codes = new Set(rows.map((r) => shownCurrency(r.displayCurrency)));
  return codes.size === 1 ? { currency: [...codes][0], mixed: false } : { currency: 'EUR', mixed: true };
}

/** What the small print says of the list's money: each row's currency and the totals'. */
function currencyNote(rows: ChatbotListRow[]): string {
  const { currency, mixed } = totalsCurrency(rows);
  if (!mixed) return conversionNote(currency);
  return 'Each chatbot\'s revenue is in its own display currency, converted from EUR at fixed rates; the totals are in EUR, as amounts in different currencies do not add up.';
}

/**
 * The account overview: the account's totals first, then each chatbot with its visitors and
 * revenue after chat over the last 7 days and their change against the 7 days before, in the
 * chatbot's display currency (the totals' currency: totalsCurrency).
 */
export function chatbotListBody(rows: ChatbotListRow[], totals: ChatbotFigures): RawHtml {
  if (rows.length === 0) return html`<h1>Your chatbots</h1><p>This account has no chatbot yet. <a href="/app/chatbots/new">Add a chatbot</a> to get its tracker snippet.</p>`;
  return html`<h1>Your chatbots</h1>
<p class="window">Visitors and revenue after chat: the last ${OVERVIEW_DAYS} days, each with its change against the ${OVERVIEW_DAYS} days before (percent; "new" when the days before had next to nothing).</p>
${currencyNote(rows) ? html`<p class="hint" data-currency-note>${currencyNote(rows)}</p>` : ''}
<p><a class="add" href="/app/chatbots/new">Add a chatbot</a></p>
<div class="scroll" tabindex="0" role="region" aria-label="Chatbots (table, scrolls sideways)"><table class="chatbots"><thead><tr><th scope="col">Chatbot</th><th scope="col">Visitors (${OVERVIEW_DAYS} days)</th><th scope="col">Revenue after chat (${OVERVIEW_DAYS} days)</th><th scope="col">Status</th><th scope="col">Analysed conversations</th><th scope="col">Last active</th><th scope="col">Events (24 h)</th><th scope="col"><span class="sr-only">Views</span></th></tr></thead>
<tbody><tr class="totals" data-totals data-currency="${totalsCurrency(rows).currency}">
<th scope="row">All chatbots (${fmtInt(rows.length)})${totalsCurrency(rows).mixed ? html` <span class="hint">in EUR</span>` : ''}</th>
${figureCells(totals, moneyIn(totalsCurrency(rows).currency))}
<td colspan="5"></td>
</tr>
${rows.map((r) => html`<tr data-chatbot="${r.id}" data-currency="${shownCurrency(r.displayCurrency)}">
<th scope="row"><a href="/app/${r.id}/analytics">${r.name}</a></th>
${figureCells(r.figures, moneyIn(r.displayCurrency))}
<td data-label="Status">${stateBadge(r.status)}</td>
<td data-label="Analysed conversations" data-stat="chatbots.conversations" data-value="${r.conversations}">${fmtInt(r.conversations)}</td>
<td data-label="Last active">${r.lastActive}</td>
<td data-label="Events (24 h)" data-stat="chatbots.events24h" data-value="${r.events24h}">${fmtInt(r.events24h)}</td>
<td class="actions"><a href="/app/${r.id}/insights">Insights</a> <a href="/app/${r.id}/live">Live</a> <a href="/app/${r.id}/setup">Setup</a></td>
</tr>`)}</tbody></table></div>`;
}

/** The live view's word on bot filtering (app.js writes the same sentence on each refresh). */
export function botNote(requests: number): string {
  return `${fmtInt(requests)} ${requests === 1 ? 'request' : 'requests'} in the last 30 minutes came from bots or scripts (e.g. a Node.js test) and ${requests === 1 ? 'is' : 'are'} not counted.`;
}

export function liveBody(chatbotId: string, minutes: { minute: string; events: number }[], botRequests = 0): RawHtml {
  const total = minutes.reduce((s, m) => s + m.events, 0);
  return html`<p class="window">Events per minute, last 30 minutes. Refreshes every 5 seconds while this page is open.</p>
<dl class="stats"><div class="stat"><dt>Events in 30 minutes</dt><dd id="live-total" aria-live="polite">${fmtInt(total)}</dd></div>
<div class="stat"><dt>Updated</dt><dd id="live-updated"><time>${new Date().toISOString().slice(11, 19)}</time> UTC</dd></div></dl>
<p class="banner bot-note" id="live-bots" data-bot-requests="${botRequests}" aria-live="polite"${botRequests === 0 ? raw(' hidden') : raw('')}>${botNote(botRequests)}</p>
<div class="series" data-live="/api/dashboard/analytics/stats/live-events?chatbot_id=${chatbotId}" aria-hidden="true"></div>
${jsonBlock('live-data', minutes)}
<noscript><p>Reload the page to refresh the numbers.</p></noscript>`;
}

/**
 * The analytics page of a chatbot with nothing tracked in the window, its previous period and
 * the last 24 hours: the steps that get the first event in, instead of a page of zeros.
 */
export function setupSteps(chatbotId: string): RawHtml {
  return html`<section class="empty-state" aria-labelledby="h-empty" data-empty-state><h2 id="h-empty">No events from this chatbot yet</h2>
<p>Nothing was tracked in these days, the days before them or the last 24 hours. Three steps start the numbers:</p>
<ol class="steps">
<li><a href="/app/${chatbotId}/setup">Copy the tag on the Setup tab</a> (the tracker, with this chatbot's id).</li>
<li>Put it on every page of the shop, before <code>&lt;/body&gt;</code>; list the shop's address under <a href="/app/${chatbotId}/tracking">Tracking settings</a> if you restrict origins.</li>
<li>Open the shop in a browser: the first events show on the <a href="/app/${chatbotId}/live">Live</a> tab within seconds. Requests sent from scripts or servers count as bots and are left out.</li>
</ol>
<p class="hint">Installed it a while ago? Choose a longer timeframe below.</p></section>`;
}
