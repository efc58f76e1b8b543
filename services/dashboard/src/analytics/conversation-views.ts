import { html, type RawHtml } from '../html/html.js';
import { formatDateTimeMinutes, formatDateTimeSeconds } from '../html/time.js';
import type { ConversationDetail } from './conversation-repository.js';
import { VISITOR_EVENTS_LIMIT, type VisitorEvent } from './visitor-event-repository.js';
import type { Answer } from '../stats/run.js';
import type { TopicDimension } from '../stats/topics-report.js';
import type { conversationInsights } from '../stats/statistics/index.js';
import { fmtDec, fmtInt, fmtPercent } from '../html/format.js';
import { conversionNote, moneyIn, type Money } from '../html/money.js';
import { stat } from './analytics-view.js';
import { INSIGHTS_CHOICES } from '../html/window-link.js';

type Insights = Answer<typeof conversationInsights>;
type Ranked = Insights['most_clicked_products'];


export function insightsForm(action: string, timeframe: string, error: string | null): RawHtml {
  return html`<form class="timeframe" method="get" action="${action}">
<span class="label" id="if-quick">Timeframe</span>
<span class="quick" role="group" aria-labelledby="if-quick">${INSIGHTS_CHOICES.map((t) => html`<a href="${action}?timeframe=${encodeURIComponent(t)}"${t === timeframe ? html` aria-current="true"` : ''}>${t}</a>`)}</span>
<label for="timeframe">Timeframe (e.g. 14 days, 6 hours, march, 2026-11-01..2026-11-15)</label>
<input id="timeframe" name="timeframe" type="text" maxlength="50" value="${timeframe}"${error ? html` aria-invalid="true" aria-describedby="timeframe-error"` : ''}>
<button type="submit">Show</button>
${error ? html`<p class="field-error" id="timeframe-error" role="alert">${error}</p>` : ''}
</form>`;
}

/** The report's links are absolute APP_URL links (for e-mails); on the page they stay on the address in use. */
export const localLink = (link: string) => {
  const at = link.indexOf('/app/');
  return at >= 0 ? link.slice(at) : link;
};

/**
 * One ranked list with, beside each count, what its visitors bought after those conversations
 * (the report's revenue by topic over the same window; `data-topics` names its dimension).
 */
function ranked(title: string, dimension: TopicDimension, list: Ranked, money: Money): RawHtml {
  return html`<section class="ranked" data-topics="${dimension}"><h2>${title}</h2>
${list.length === 0 ? html`<p class="hint">None in this window.</p>` : html`<ol>${list.map((r) => html`<li><span class="item">${r.item}</span> <span class="count">${fmtInt(r.count)}</span>
<span class="links">${r.conversations.map((c, i) => html`<a href="${localLink(c)}" data-insight-link aria-label="${r.item}: conversation ${i + 1}">${i + 1}</a>`)}</span>
${r.revenue !== null && r.conversion_rate !== null && r.visitors !== null
    ? html`<span class="revenue" data-revenue="${r.revenue}" data-conversion="${r.conversion_rate}">${money(r.revenue)} after chat · ${fmtPercent(r.conversion_rate)} of ${fmtInt(r.visitors)} bought</span>`
    : html`<span class="revenue hint">no revenue figure</span>`}</li>`)}</ol>`}
</section>`;
}

/** Missing information ranked by what its visitors left in their carts: what the assistant did not know cost. */
function missingCost(cost: Insights['missing_information_cost'], money: Money): RawHtml {
  return html`<section class="ranked" aria-labelledby="h-missing-cost" data-missing-cost><h2 id="h-missing-cost">What the assistant did not know</h2>
<p data-missing-total="${cost.abandoned_value}">What the assistant did not know cost you <strong>${money(cost.abandoned_value)}</strong>: the carts left by ${fmtInt(cost.abandoned_carts)} ${cost.abandoned_carts === 1 ? 'visitor' : 'visitors'} whose conversations missed information and who bought nothing.</p>
${cost.items.length === 0 ? html`<p class="hint">No abandoned cart after such a conversation in this window.</p>` : html`<ol>${cost.items.map((i) => html`<li><span class="item">${i.item}</span>
<span class="count" data-abandoned-value="${i.abandoned_value}">${money(i.abandoned_value)}</span> <span class="hint">${fmtInt(i.abandoned_carts)} abandoned ${i.abandoned_carts === 1 ? 'cart' : 'carts'}</span></li>`)}</ol>`}
</section>`;
}

/** `currency`: the chatbot's display currency, the money's (html/money.ts). */
export function insightsBody(r: Insights, currency: string): RawHtml {
  const money = moneyIn(currency);
  const note = conversionNote(currency);
  return html`<dl class="stats">
${stat('Analysed conversations', 'conversation-insights.total_conversations_analyzed', r.total_conversations_analyzed, fmtInt(r.total_conversations_analyzed))}
${stat('Click-throughs', 'conversation-insights.total_click_throughs', r.total_click_throughs, fmtInt(r.total_click_throughs))}
${stat('Chat conversion', 'conversation-insights.chat_conversion.ratio', r.chat_conversion.ratio, fmtPercent(r.chat_conversion.ratio))}
${stat('Needed a human', 'conversation-insights.human_intervention_needed_percentage', r.human_intervention_needed_percentage, fmtPercent(r.human_intervention_needed_percentage))}
${stat('Average duration (min)', 'conversation-insights.average_conversation_duration_minutes', r.average_conversation_duration_minutes, fmtDec(r.average_conversation_duration_minutes))}
${stat('Likes / dislikes', 'conversation-insights.reactions.likes', r.reactions.likes, `${fmtInt(r.reactions.likes)} / ${fmtInt(r.reactions.dislikes)}`)}
</dl>
<p class="hint" data-vocabulary>Every figure here is of <strong>analysed conversations</strong>: the stored transcripts of these days, read by the analysis. <strong>Chats started</strong> on the analytics page counts every chat the tracker saw open, analysed or not. Chat conversion here is of analysed conversations, so it differs from the analytics page's conversion with chat (of the visitors who chatted).</p>
<div class="grid2">
<section><h2>Mood</h2><ul class="plain"><li>Happy ${fmtPercent(r.mood_percentages.happy)}</li><li>Neutral ${fmtPercent(r.mood_percentages.neutral)}</li><li>Angry ${fmtPercent(r.mood_percentages.angry)}</li></ul></section>
<section><h2>Outcome</h2><ul class="plain"><li>Success ${fmtPercent(r.outcome_percentages.success)}</li><li>Neutral ${fmtPercent(r.outcome_percentages.neutral)}</li><li>Fail ${fmtPercent(r.outcome_percentages.fail)}</li></ul></section>
</div>
<div class="grid2">
${ranked('Most clicked products', 'clicked_product', r.most_clicked_products, money)}
${ranked('Most talked-about products', 'product', r.most_talked_about_products, money)}
${ranked('Most frequent intents', 'intent', r.most_frequent_intents, money)}
${ranked('Most common complaints', 'complaint', r.most_common_complaints, money)}
${ranked('Missing information', 'missing_information', r.missing_information_overview, money)}
${missingCost(r.missing_information_cost, money)}
</div>
<p class="hint">Revenue and conversion beside each count: the purchases of the item's visitors after one of their conversations naming it, over every conversation of the window with a known visitor (revenue by topic).</p>
${note ? html`<p class="hint" data-currency-note>${note}</p>` : ''}`;
}

const list = (items: readonly string[]) => (items.length ? items.join(', ') : '—');

export function conversationBody(c: ConversationDetail): RawHtml {
  const a = c.analysis;
  return html`<p class="window">Started ${formatDateTimeMinutes(c.startedAt)} UTC · ${fmtInt(c.messages.length)} messages</p>
<div class="conversation">
<section aria-labelledby="h-messages"><h2 id="h-messages">Messages</h2>
${c.messages.length === 0 ? html`<p class="hint">No messages.</p>` : html`<ol class="messages">${c.messages.map((m) => html`<li class="msg ${m.role === 'assistant' ? 'assistant' : 'user'}">
<span class="who">${m.role === 'assistant' ? 'Assistant' : 'Visitor'} · <time datetime="${m.createdAt.toISOString()}">${formatDateTimeSeconds(m.createdAt)}</time></span>
<p>${m.content}</p></li>`)}</ol>`}
</section>
<section aria-labelledby="h-analysis"><h2 id="h-analysis">Analysis</h2>
${a ? html`<dl class="facts">
<dt>Mood</dt><dd>${a.mood ?? '—'}</dd><dt>Outcome</dt><dd>${a.outcome ?? '—'}</dd>
<dt>Converted</dt><dd>${a.converted ? 'yes' : 'no'}</dd><dt>Needed a human</dt><dd>${a.humanInterventionNeeded ? 'yes' : 'no'}</dd>
<dt>Intents</dt><dd>${list(a.intents)}</dd><dt>Products talked about</dt><dd>${list(a.talkedAboutProducts)}</dd>
<dt>Products clicked</dt><dd>${list(a.clickedProducts)}</dd><dt>Complaints</dt><dd>${list(a.complaints)}</dd>
<dt>Missing information</dt><dd>${list(a.missingInformation)}</dd></dl>` : html`<p class="hint">This conversation has not been analysed.</p>`}
</section>
</div>`;
}

/** What an event says beyond its name: the popup, how the chat was opened, the order. */
function eventDetails(e: VisitorEvent, money: Money): string {
  const parts = [
    e.popupVersion ? `popup ${e.popupVersion}` : '',
    e.openWay ? `opened by ${e.openWay.replace('_', ' ')}` : '',
    e.orderNum ? `order ${e.orderNum}` : '',
    e.event === 'purchase' ? (e.valueEur === null ? 'value in an unknown currency' : money(e.valueEur)) : '',
  ];
  return parts.filter(Boolean).join(' · ');
}

/** Only the path of a page address: the host is the shop's own, the query may be long. */
const pagePath = (url: string) => {
  try { return new URL(url).pathname; } catch { return url; }
};

/**
 * The visitor's tracked events around the conversation (a day before it to a day after), or why
 * there are none: a conversation stored without a visitor token cannot be linked to events.
 */
export function visitorEventsBody(token: string | null, read: { events: VisitorEvent[]; truncated: boolean } | null, currency: string): RawHtml {
  const money = moneyIn(currency);
  const note = conversionNote(currency);
  const body = !token || !read
    ? html`<p class="hint">This conversation was stored without the visitor's tracker token, so its visitor's events cannot be shown.</p>`
    : read.events.length === 0
      ? html`<p class="hint">No tracked events of this visitor from a day before the conversation to a day after it.</p>`
      : html`<p class="hint">From a day before the conversation to a day after its last message, oldest first${read.truncated ? `; the first ${VISITOR_EVENTS_LIMIT} shown` : ''}. Bots are left out.</p>
<div class="scroll" tabindex="0" role="region" aria-label="Visitor events (table, scrolls sideways)"><table class="visitor-events"><thead><tr><th scope="col">Event</th><th scope="col">Time (UTC)</th><th scope="col">Page</th><th scope="col">Details</th></tr></thead>
<tbody>${read.events.map((e) => html`<tr data-event-id="${e.eventId}"><th scope="row">${e.event}</th><td data-label="Time (UTC)"><time datetime="${e.at.toISOString()}">${formatDateTimeSeconds(e.at)}</time></td><td class="wrap" data-label="Page">${pagePath(e.url)}</td><td class="wrap" data-label="Details">${eventDetails(e, money)}</td></tr>`)}</tbody></table></div>${note && read.events.some((e) => e.valueEur !== null) ? html`<p class="hint" data-currency-note>${note}</p>` : ''}`;
  return html`<section aria-labelledby="h-visitor-events"><h2 id="h-visitor-events">The visitor's events</h2>
${token ? html`<p class="window">Visitor token <code>${token}</code></p>` : ''}
${body}
</section>`;
}
