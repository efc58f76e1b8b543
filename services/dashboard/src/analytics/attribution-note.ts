import { html, type RawHtml } from '../html/html.js';

/**
 * The rule the revenue figures follow, named beside them (docs/statistics.md, "Revenue source"):
 * the purchases answer's `attribution`.
 */
export function attributionNote(a: { source: 'tracker' | 'orders'; window_days: number | null }, chatbotId?: string): RawHtml {
  const text = a.source === 'orders'
    ? `Revenue from the shop's orders, net of refunds and cancellations. After chat: the visitor started a chat within ${a.window_days} ${a.window_days === 1 ? 'day' : 'days'} before the order.`
    : 'Revenue from purchase events on the shop\'s pages. After chat: after the visitor\'s first chat in this window.';
  const link = chatbotId ? html` <a href="/app/${chatbotId}/tracking">Change the rule</a>` : '';
  return html`<p class="hint" data-stat="purchases.attribution.source" data-value="${a.source}">${text}${link}</p>`;
}
