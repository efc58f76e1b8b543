import type { Flash } from '../auth/flash.js';
import type { FieldErrors } from '../http/errors.js';
import { html, raw, type RawHtml } from '../html/html.js';
import { flashMessages, setupNav } from '../html/components.js';

export interface TrackingForm {
  allowedOrigins: string;
  maxPurchaseEur: string;
  requireSignedPurchases: boolean;
  retentionDays: string;
  holdoutPercent: string;
  errors: FieldErrors | null;
}

const fieldError = (errors: FieldErrors | null, name: string) => {
  const first = errors ? Object.entries(errors).find(([k]) => k === name || k.startsWith(`${name}.`))?.[1][0] : undefined;
  return first ? html`<p class="field-error" id="${name}-error" role="alert">${first}</p>` : '';
};
const invalid = (errors: FieldErrors | null, name: string) =>
  (errors && Object.keys(errors).some((k) => k === name || k.startsWith(`${name}.`)) ? raw(` aria-invalid="true" aria-describedby="${name}-hint ${name}-error"`) : raw(` aria-describedby="${name}-hint"`));

/**
 * A chatbot's tracking settings: the shop's origins, the EUR cap of one purchase, signed
 * purchases (services/ingest/README.md). The secret is never shown here, only whether one exists.
 */
export function trackingSettingsBody(bot: { id: string; name: string; hasSigningSecret: boolean }, form: TrackingForm, flash: Flash | null): RawHtml {
  return html`<h1>${bot.name}: tracking settings</h1>
${setupNav(bot.id, 'tracking')}
${flashMessages(flash)}
<section aria-labelledby="h-tracking"><h2 id="h-tracking">Who may report events and revenue</h2>
<form class="stacked" method="post" action="/app/${bot.id}/tracking" novalidate>
<div class="field"><label for="allowedOrigins">Allowed origins</label>
<textarea id="allowedOrigins" name="allowedOrigins" rows="4"${invalid(form.errors, 'allowedOrigins')}>${form.allowedOrigins}</textarea>
<p class="hint" id="allowedOrigins-hint">The shop's addresses, one per line, e.g. <code>https://shop.example</code> or <code>*.shop.example</code>. A browser on any other site is refused. Empty: any site.</p>
${fieldError(form.errors, 'allowedOrigins')}</div>
<div class="field"><label for="maxPurchaseEur">Largest plausible purchase (EUR)</label>
<input id="maxPurchaseEur" name="maxPurchaseEur" type="text" inputmode="decimal" maxlength="20" value="${form.maxPurchaseEur}"${invalid(form.errors, 'maxPurchaseEur')}>
<p class="hint" id="maxPurchaseEur-hint">A purchase worth more, or with more than 10,000 of one item, is set aside: it is not counted as revenue, and the analytics page says how many were.</p>
${fieldError(form.errors, 'maxPurchaseEur')}</div>
<div class="field check"><input id="requireSignedPurchases" name="requireSignedPurchases" type="checkbox" value="true"${form.requireSignedPurchases ? raw(' checked') : ''} aria-describedby="requireSignedPurchases-hint">
<label for="requireSignedPurchases">Count only purchases signed by the shop's backend</label>
<p class="hint" id="requireSignedPurchases-hint">Nobody else can then report revenue or claim an order number. Unsigned purchases are kept and shown as unverified.${bot.hasSigningSecret ? '' : ' Turning this on creates the signing secret and shows it once.'}</p></div>
<div class="field"><label for="retentionDays">Keep visitors' data for (days)</label>
<input id="retentionDays" name="retentionDays" type="text" inputmode="numeric" maxlength="4" value="${form.retentionDays}"${invalid(form.errors, 'retentionDays')}>
<p class="hint" id="retentionDays-hint">Events and conversations older than this are deleted every day, from 30 to 1,095 days (395, 13 months, by default). Visitor and event counts of older days stay; revenue, carts and sources of older days are gone with the rows.</p>
${fieldError(form.errors, 'retentionDays')}</div>
<div class="field"><label for="holdoutPercent">Holdout (% of visitors who do not see the assistant)</label>
<input id="holdoutPercent" name="holdoutPercent" type="text" inputmode="numeric" maxlength="3" value="${form.holdoutPercent}"${invalid(form.errors, 'holdoutPercent')}>
<p class="hint" id="holdoutPercent-hint">0 to 50. The assistant stays hidden from this share of visitors, chosen at random and kept per visitor, so the analytics page can show the revenue it adds. 0: no holdout.</p>
${fieldError(form.errors, 'holdoutPercent')}</div>
<button type="submit">Save tracking settings</button>
</form></section>
<section aria-labelledby="h-secret"><h2 id="h-secret">Purchase signing secret</h2>
<p>${bot.hasSigningSecret ? 'A secret exists. It is never shown again; a new one replaces it at once (purchases signed with the old one stop counting within 15 seconds).' : 'No secret yet.'}</p>
<form method="post" action="/app/${bot.id}/tracking/signing-secret"><button type="submit" class="secondary">${bot.hasSigningSecret ? 'Generate a new secret' : 'Generate the secret'}</button></form>
<p><a href="/app/${bot.id}/analytics">Back to ${bot.name}'s analytics</a></p></section>`;
}

const nodeSnippet = (chatbotId: string) => `// Node (the shop's backend): data.signature for the purchase event
import { createHmac } from 'node:crypto';
const num = (n) => n.toFixed(2);
const lines = ['v2', '${chatbotId}', order.number, order.currency,
  ...order.items.map((item) => [item.id, item.quantity, num(item.price), item.currency ?? order.currency].join('|'))];
const signature = 'v2=' + createHmac('sha256', process.env.CHATLYTICS_SIGNING_SECRET).update(lines.join('\\n')).digest('hex');`;

const phpSnippet = (chatbotId: string) => `<?php // PHP (the shop's backend): data.signature for the purchase event
$lines = ['v2', '${chatbotId}', $order['number'], $order['currency']];
foreach ($order['items'] as $item) {
  $lines[] = implode('|', [$item['id'], $item['quantity'], number_format($item['price'], 2, '.', ''), $item['currency'] ?? $order['currency']]);
}
$signature = 'v2=' . hash_hmac('sha256', implode("\\n", $lines), getenv('CHATLYTICS_SIGNING_SECRET'));`;

/** The one time the purchase signing secret is shown, with how the shop's backend uses it. */
export function signingSecretBody(bot: { id: string; name: string }, secret: string): RawHtml {
  return html`<h1>${bot.name}: purchase signing secret</h1>
<section aria-labelledby="h-new-secret"><h2 id="h-new-secret">Your new secret</h2>
<p class="status" role="status">Copy the secret now: it is shown only this once and cannot be shown again.</p>
<label for="signing-secret">Secret</label>
<input id="signing-secret" class="copy" type="text" readonly value="${secret}" aria-describedby="signing-secret-hint">
<p class="hint" id="signing-secret-hint">Keep it in the shop's backend only (e.g. as <code>CHATLYTICS_SIGNING_SECRET</code>), never in a page.</p>
<h3>Signing a purchase</h3>
<p>The backend signs <code>v2</code>, the chatbot id, the order number, the currency and one line per item (id, quantity, price with two decimals, currency), with HMAC-SHA256, and the page sends <code>v2=</code> and the hex result as <code>data.signature</code> of the purchase event.</p>
<label for="node-snippet">Node</label>
<textarea id="node-snippet" class="copy" readonly rows="6">${nodeSnippet(bot.id)}</textarea>
<label for="php-snippet">PHP</label>
<textarea id="php-snippet" class="copy" readonly rows="6">${phpSnippet(bot.id)}</textarea>
<p><a href="/app/${bot.id}/tracking">Back to the tracking settings</a></p></section>`;
}

/** The analytics page's note under revenue: purchases accepted but not counted, with why. */
export function setAsideNote(chatbotId: string, s: { total: number; implausible: number; unverified: number }): RawHtml {
  if (s.total === 0) return html``;
  const noun = s.total === 1 ? 'purchase' : 'purchases';
  return html`<p class="hint" data-stat="set-aside-purchases.total" data-value="${s.total}">${s.total} ${noun} set aside: ${s.implausible} implausible, ${s.unverified} unverified. They are not in the revenue above: implausible ones have a negative amount, exceed the chatbot's largest plausible purchase or 10,000 of one item; unverified ones lack a valid signature while signed purchases are required. <a href="/app/${chatbotId}/tracking">Tracking settings</a></p>`;
}
