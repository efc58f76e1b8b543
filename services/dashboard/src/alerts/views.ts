import { ALERT_KINDS, type AlertKind } from '@chatlytics/postgres';
import type { Flash } from '../auth/flash.js';
import type { FieldErrors } from '../http/errors.js';
import { html, raw, type RawHtml } from '../html/html.js';
import { flashMessages, stateBadge } from '../html/components.js';
import { describeCondition, describeValue } from './describe.js';
import type { AlertRow, AlertTransitionRow } from './repository.js';

export interface AlertForm { kind: string; threshold: string; window_minutes: string; email: boolean; webhook_url: string; errors: FieldErrors | null }
export const EMPTY_ALERT_FORM: AlertForm = { kind: 'silence', threshold: '', window_minutes: '', email: true, webhook_url: '', errors: null };

const KIND_LABELS: Record<AlertKind, string> = {
  silence: 'Silence: no tracking event (default 120 minutes)',
  conversion_drop: 'Conversion drop: rate with chat below a % of the week before (default 50 %, 1440 minutes)',
  dislike_share: 'Dislike share: dislikes at or above a % of reactions (default 30 %, 1440 minutes)',
  ab_mismatch: 'A/B mismatch: the split stopped assigning 50/50 (A/B chatbots only)',
};
const when = (d: Date | null) => (d ? html`<time datetime="${d.toISOString()}">${d.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>` : 'never');

function fieldError(errors: FieldErrors | null, name: string): RawHtml {
  const messages = errors?.[name] ?? [];
  return messages.length ? html`<p class="field-error" id="${name}-error" role="alert">${messages[0]}</p>` : html``;
}
const invalid = (errors: FieldErrors | null, name: string) => (errors?.[name]?.length ? raw(` aria-invalid="true" aria-describedby="${name}-error"`) : raw(''));

/** Changes an alert's threshold, window and channels (PATCH's fields); errors come back as the page's flash. */
function editForm(chatbotId: string, a: AlertRow): RawHtml {
  const id = (name: string) => `${name}-${a.id}`;
  return html`<details><summary>Edit</summary>
<form method="post" action="/app/${chatbotId}/alerts/${a.id}">
${a.threshold === null ? '' : html`<div class="field"><label for="${id('threshold')}">Threshold (%)</label><input id="${id('threshold')}" name="threshold" type="text" inputmode="decimal" value="${String(a.threshold)}"></div>`}
<div class="field"><label for="${id('window_minutes')}">Window (minutes)</label><input id="${id('window_minutes')}" name="window_minutes" type="text" inputmode="numeric" value="${String(a.windowMinutes)}"></div>
<div class="field"><label><input type="checkbox" name="email" value="true"${a.email ? raw(' checked') : ''}> E-mail the account's users</label></div>
<div class="field"><label for="${id('webhook_url')}">Webhook URL</label><input id="${id('webhook_url')}" name="webhook_url" type="url" maxlength="2000" value="${a.webhookUrl ?? ''}">
<p class="hint">Empty: no webhook.</p></div>
<button type="submit" class="secondary">Save</button>
</form></details>`;
}

function alertItem(chatbotId: string, a: AlertRow, transitions: AlertTransitionRow[]): RawHtml {
  const channels = [a.email ? 'e-mail' : '', a.webhookUrl ? 'webhook' : ''].filter(Boolean).join(' and ') || 'none (shown here only)';
  return html`<article class="alert" data-alert-id="${a.id}" data-state="${a.state}">
<h3>${a.kind} ${stateBadge(a.state)}</h3>
<p>Fires on ${describeCondition(a)}. Notifies: ${channels}.</p>
<p>Last evaluated ${when(a.lastEvaluatedAt)}: ${describeValue(a.kind, a.lastValue)}.</p>
${transitions.length === 0 ? html`<p>No transition yet.</p>` : html`<div class="scroll" tabindex="0" role="region" aria-label="Transitions (table, scrolls sideways)"><table><caption>Last ${transitions.length} transitions, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">State</th><th scope="col">Value</th></tr></thead>
<tbody>${transitions.map((t) => html`<tr><td>${when(t.at)}</td><td>${stateBadge(t.state)}</td><td>${describeValue(a.kind, t.value)}</td></tr>`)}</tbody></table></div>`}
${editForm(chatbotId, a)}
<form method="post" action="/app/${chatbotId}/alerts/${a.id}/delete"><button type="submit" class="danger">Delete this alert</button></form>
</article>`;
}

/** A chatbot's alerts page: each alert with its state and last 20 transitions, and the form for a new one. */
export function alertsBody(o: {
  chatbot: { id: string; name: string; abTestEnabled: boolean }; alerts: AlertRow[]; transitions: Map<string, AlertTransitionRow[]>; flash: Flash | null; form: AlertForm;
}): RawHtml {
  const f = o.form;
  const kinds = ALERT_KINDS.filter((k) => k !== 'ab_mismatch' || o.chatbot.abTestEnabled);
  return html`<h1>${o.chatbot.name}: alerts</h1>
${flashMessages(o.flash)}
<section aria-labelledby="h-alerts"><h2 id="h-alerts">Alerts</h2>
<p class="hint">Each alert is evaluated every minute and notifies once when it starts firing and once when it is resolved.</p>
${o.alerts.length === 0 ? html`<p>This chatbot has no alert.</p>` : o.alerts.map((a) => alertItem(o.chatbot.id, a, o.transitions.get(a.id) ?? []))}
</section>
<section aria-labelledby="h-new-alert"><h2 id="h-new-alert">New alert</h2>
<form method="post" action="/app/${o.chatbot.id}/alerts" novalidate>
<div class="field"><label for="kind">Kind</label><select id="kind" name="kind"${invalid(f.errors, 'kind')}>
${kinds.map((k) => html`<option value="${k}"${k === f.kind ? raw(' selected') : ''}>${KIND_LABELS[k]}</option>`)}</select>${fieldError(f.errors, 'kind')}</div>
<div class="field"><label for="threshold">Threshold (%)</label><input id="threshold" name="threshold" type="text" inputmode="decimal" value="${f.threshold}"${invalid(f.errors, 'threshold')}>
<p class="hint">Conversion drop and dislike share only; empty for the default.</p>${fieldError(f.errors, 'threshold')}</div>
<div class="field"><label for="window_minutes">Window (minutes)</label><input id="window_minutes" name="window_minutes" type="text" inputmode="numeric" value="${f.window_minutes}"${invalid(f.errors, 'window_minutes')}>
<p class="hint">Empty for the kind's default.</p>${fieldError(f.errors, 'window_minutes')}</div>
<div class="field"><label><input type="checkbox" name="email" value="true"${f.email ? raw(' checked') : ''}> E-mail the account's users</label></div>
<div class="field"><label for="webhook_url">Webhook URL</label><input id="webhook_url" name="webhook_url" type="url" maxlength="2000" value="${f.webhook_url}"${invalid(f.errors, 'webhook_url')}>
<p class="hint">Optional: an https URL that receives a signed JSON POST on each transition.</p>${fieldError(f.errors, 'webhook_url')}</div>
<button type="submit">Create alert</button>
</form></section>`;
}

/** The answer to a created alert: the one time its webhook signing secret is shown. */
export function createdAlertBody(chatbotId: string, a: AlertRow, secret: string): RawHtml {
  return html`<h1>Alert created</h1>
<section aria-labelledby="h-secret"><h2 id="h-secret">${a.kind}: ${describeCondition(a)}</h2>
<p class="status" role="status">Copy the signing secret now: it is shown only this once. Webhook requests carry <code>X-Chatlytics-Signature: sha256=…</code>, the HMAC-SHA256 of the body with this secret.</p>
<label for="alert-secret">Signing secret</label>
<input id="alert-secret" class="copy" type="text" readonly value="${secret}">
<p><a href="/app/${chatbotId}/alerts">Back to the alerts</a></p></section>`;
}
