import type { FieldErrors } from '../http/errors.js';
import { html, raw, type RawHtml } from '../html/html.js';
import { DISPLAY_CURRENCIES } from '../html/money.js';

export interface RevenueForm {
  revenueSource: string;
  attributionWindowDays: string;
  /** The chatbot's display currency (html/money.ts). */
  displayCurrency: string;
  errors: FieldErrors | null;
}

interface Bot { id: string; name: string; hasOrdersKey: boolean; hasShopifyWebhookSecret: boolean; hasWoocommerceWebhookSecret: boolean }

const errorOf = (errors: FieldErrors | null, name: string) => {
  const first = errors?.[name]?.[0];
  return first ? html`<p class="field-error" id="${name}-error" role="alert">${first}</p>` : '';
};
const describedBy = (errors: FieldErrors | null, name: string) =>
  (errors?.[name] ? raw(` aria-invalid="true" aria-describedby="${name}-hint ${name}-error"`) : raw(` aria-describedby="${name}-hint"`));
const isSet = (set: boolean) => (set ? 'set' : 'not set');

/**
 * The tracking page's section on revenue from the shop's own orders (services/ingest/README.md,
 * "Orders"): where revenue comes from, the attribution window, the currency the pages and the
 * digest show money in, the shop webhook secrets
 * (write-only: the page says whether one is set, never shows it) and the orders key.
 */
export function revenueSettingsSection(bot: Bot, form: RevenueForm, ingestUrl: string): RawHtml {
  return html`<section aria-labelledby="h-revenue"><h2 id="h-revenue">Revenue from the shop's orders</h2>
<form class="stacked" method="post" action="/app/${bot.id}/tracking/revenue" novalidate>
<fieldset><legend>Where purchases and revenue come from</legend>
<div class="field check"><input type="radio" id="revenueSource-tracker" name="revenueSource" value="tracker"${form.revenueSource !== 'orders' ? raw(' checked') : ''}>
<label for="revenueSource-tracker">Purchase events from the shop's pages (the tracker)</label></div>
<div class="field check"><input type="radio" id="revenueSource-orders" name="revenueSource" value="orders"${form.revenueSource === 'orders' ? raw(' checked') : ''}>
<label for="revenueSource-orders">The shop's own orders, net of refunds and cancellations</label></div>
${errorOf(form.errors, 'revenueSource')}</fieldset>
<div class="field"><label for="attributionWindowDays">Attribution window (days)</label>
<input id="attributionWindowDays" name="attributionWindowDays" type="text" inputmode="numeric" maxlength="2" value="${form.attributionWindowDays}"${describedBy(form.errors, 'attributionWindowDays')}>
<p class="hint" id="attributionWindowDays-hint">1 to 30. An order counts as after chat when its visitor started a conversation within this many days before it.</p>
${errorOf(form.errors, 'attributionWindowDays')}</div>
<div class="field"><label for="displayCurrency">Currency shown in the app and the weekly digest</label>
<select id="displayCurrency" name="displayCurrency"${describedBy(form.errors, 'displayCurrency')}>${DISPLAY_CURRENCIES.map((c) => html`<option value="${c}"${c === form.displayCurrency ? raw(' selected') : ''}>${c}</option>`)}</select>
<p class="hint" id="displayCurrency-hint">Revenue and order values are stored in EUR; the pages and the digest show them in this currency, converted at fixed rates. The API and the CSV files stay in EUR.</p>
${errorOf(form.errors, 'displayCurrency')}</div>
<div class="field"><label for="shopifyWebhookSecret">Shopify webhook secret (${isSet(bot.hasShopifyWebhookSecret)})</label>
<input id="shopifyWebhookSecret" name="shopifyWebhookSecret" type="password" autocomplete="off" maxlength="256" value=""${describedBy(form.errors, 'shopifyWebhookSecret')}>
<p class="hint" id="shopifyWebhookSecret-hint">The app's secret that signs the webhooks sent to <code>${ingestUrl}/api/integrations/shopify/${bot.id}</code>. Never shown again; leave empty to keep the current one.</p>
${errorOf(form.errors, 'shopifyWebhookSecret')}</div>
<div class="field"><label for="woocommerceWebhookSecret">WooCommerce webhook secret (${isSet(bot.hasWoocommerceWebhookSecret)})</label>
<input id="woocommerceWebhookSecret" name="woocommerceWebhookSecret" type="password" autocomplete="off" maxlength="256" value=""${describedBy(form.errors, 'woocommerceWebhookSecret')}>
<p class="hint" id="woocommerceWebhookSecret-hint">The secret of the webhooks sent to <code>${ingestUrl}/api/integrations/woocommerce/${bot.id}</code>. Never shown again; leave empty to keep the current one.</p>
${errorOf(form.errors, 'woocommerceWebhookSecret')}</div>
<button type="submit">Save revenue settings</button>
</form>
<h3>Orders key</h3>
<p>${bot.hasOrdersKey ? 'A key exists. It is never shown again; a new one replaces it (the old one stops working within 15 seconds).' : 'No key yet. The shop\'s backend sends its orders to POST /api/orders with it.'}</p>
<form method="post" action="/app/${bot.id}/tracking/orders-key"><button type="submit" class="secondary">${bot.hasOrdersKey ? 'Generate a new orders key' : 'Generate the orders key'}</button></form></section>`;
}

/** The one time the orders key and its signing secret are shown. */
export function ordersKeyBody(bot: { id: string; name: string }, minted: { ordersKey: string; ordersSigningSecret: string }, ingestUrl: string): RawHtml {
  return html`<h1>${bot.name}: orders key</h1>
<section aria-labelledby="h-new-key"><h2 id="h-new-key">Your new orders key</h2>
<p class="status" role="status">Copy the key now: it is shown only this once and cannot be shown again.</p>
<label for="orders-key">Orders key</label>
<input id="orders-key" class="copy" type="text" readonly value="${minted.ordersKey}">
<p class="hint">The shop's backend sends <code>Authorization: Bearer</code> and this key with each <code>POST ${ingestUrl}/api/orders</code>.</p>
<label for="orders-signing-secret">Or sign the body with this secret</label>
<input id="orders-signing-secret" class="copy" type="text" readonly value="${minted.ordersSigningSecret}">
<p class="hint">Instead of the key: <code>X-Chatlytics-Chatbot-Id: ${bot.id}</code> and <code>X-Chatlytics-Signature: sha256=</code> the hex HMAC-SHA256 of the raw body with this secret.</p>
<p><a href="/app/${bot.id}/tracking">Back to the tracking settings</a></p></section>`;
}
