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

/**
 * The reconciliation of the window (docs/statistics.md, "reconciliation") under the revenue
 * figures, once the shop reports orders: a trust figure for the owner.
 */
export function reconciliationNote(r: { matched: number; tracker_only: number; shop_only: number }): RawHtml | '' {
  if (r.matched + r.shop_only === 0) return '';
  return html`<p class="hint" id="reconciliation">The shop's orders against the tracker's purchases in this window: ${r.matched} matched, ${r.tracker_only} only in the tracker (forged, test or lost orders), ${r.shop_only} only in the shop (the tracker missed them).</p>`;
}
