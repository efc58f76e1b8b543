import type { Flash } from '../auth/flash.js';
import type { FieldErrors } from '../http/errors.js';
import { html, raw, type RawHtml } from '../html/html.js';
import { copyButton, flashMessages, setupNav } from '../html/components.js';

export interface KeyRow { id: string; name: string; prefix: string; scope: 'read' | 'manage'; createdAt: Date; lastUsedAt: Date | null }
export interface TokenRow { id: string; name: string; prefix: string | null; createdAt: Date; lastUsedAt: Date | null; expiresAt: Date }

const SCOPE_LABEL = { read: 'Read: statistics and lists', manage: 'Manage: also creates and deletes' } as const;

const when = (d: Date | null) => (d ? html`<time datetime="${d.toISOString()}">${d.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>` : 'never');

/**
 * A labelled text input with its error tied to it (aria-invalid, aria-describedby). Only the
 * first message shows: an empty name breaks two rules (required, not blank), one says it all.
 */
function textField(o: { name: string; label: string; value: string; hint?: string; errors: FieldErrors | null; maxlength: number }): RawHtml {
  const messages = o.errors?.[o.name] ?? [];
  const describedBy = [o.hint ? `${o.name}-hint` : '', messages.length ? `${o.name}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field"><label for="${o.name}">${o.label}</label>
<input id="${o.name}" name="${o.name}" type="text" maxlength="${o.maxlength}" value="${o.value}"${messages.length ? raw(' aria-invalid="true"') : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}>
${o.hint ? html`<p class="hint" id="${o.name}-hint">${o.hint}</p>` : ''}
${messages.length ? html`<p class="field-error" id="${o.name}-error" role="alert">${messages[0]}</p>` : ''}</div>`;
}

/** A password input of the change form; the previous post's errors (flash) are tied to it. Never prefilled. */
function passwordField(name: string, label: string, autocomplete: string, flash: Flash | null, hint?: string): RawHtml {
  const messages = flash?.errors?.[name] ?? [];
  const describedBy = [hint ? `${name}-hint` : '', messages.length ? `${name}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field"><label for="${name}">${label}</label>
<input id="${name}" name="${name}" type="password" autocomplete="${autocomplete}"${messages.length ? raw(' aria-invalid="true"') : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}>
${hint ? html`<p class="hint" id="${name}-hint">${hint}</p>` : ''}
${messages.length ? html`<p class="field-error" id="${name}-error">${messages.join(' ')}</p>` : ''}</div>`;
}

/** The scope select of the new key form; `read` unless the previous post chose `manage`. */
function scopeField(value: string, errors: FieldErrors | null): RawHtml {
  const messages = errors?.scope ?? [];
  return html`<div class="field"><label for="scope">Access</label>
<select id="scope" name="scope" aria-describedby="scope-hint"${messages.length ? raw(' aria-invalid="true"') : ''}>
${(['read', 'manage'] as const).map((s) => html`<option value="${s}"${value === s ? raw(' selected') : ''}>${SCOPE_LABEL[s]}</option>`)}
</select>
<p class="hint" id="scope-hint">A read key cannot change anything: the safe choice for a reporting tool.</p>
${messages.length ? html`<p class="field-error" role="alert">${messages[0]}</p>` : ''}</div>`;
}

/** The user's auth tokens (ct_…): what they are, when they expire, and a revoke button each (a form POST). */
function tokensSection(tokens: TokenRow[]): RawHtml {
  return html`<section aria-labelledby="h-tokens"><h2 id="h-tokens">Your auth tokens</h2>
<p class="hint">Personal tokens issued with your e-mail and password (<code>POST /api/auth/tokens</code>); they act as you until they expire.</p>
${tokens.length === 0 ? html`<p>You have no auth token.</p>` : html`<div class="scroll" tabindex="0" role="region" aria-label="Auth tokens (table, scrolls sideways)"><table class="keys"><thead><tr><th scope="col">Name</th><th scope="col">Token</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${tokens.map((k) => html`<tr data-token-id="${k.id}"><th scope="row">${k.name || '(no name)'}</th><td data-label="Token"><code>${k.prefix ?? 'ct_'}…</code></td><td data-label="Created">${when(k.createdAt)}</td><td data-label="Last used">${when(k.lastUsedAt)}</td><td data-label="Expires">${when(k.expiresAt)}</td>
<td class="actions"><form method="post" action="/app/settings/tokens/${k.id}/revoke"><button type="submit" class="danger">Revoke<span class="sr-only"> ${k.name || k.prefix}</span></button></form></td></tr>`)}</tbody></table></div>`}
</section>`;
}

/** The settings page: the account's API keys (never the keys), the form for a new one, the user's tokens, notifications, the account links. */
export function settingsBody(keys: KeyRow[], tokens: TokenRow[], flash: Flash | null, form: { name: string; scope: string; errors: FieldErrors | null }, notifications?: { weeklyDigest: boolean }): RawHtml {
  return html`<h1>Settings</h1>
${flashMessages(flash)}
<section aria-labelledby="h-keys"><h2 id="h-keys">API keys</h2>
<p class="hint">A key opens this account's JSON API (<code>Authorization: Bearer ck_…</code>): a read key its statistics and lists, a manage key also creates and deletes. Only its first characters are kept for display.</p>
${keys.length === 0 ? html`<p>This account has no API key.</p>` : html`<div class="scroll" tabindex="0" role="region" aria-label="API keys (table, scrolls sideways)"><table class="keys"><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Access</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${keys.map((k) => html`<tr data-key-id="${k.id}"><th scope="row">${k.name || '(no name)'}</th><td data-label="Key"><code>${k.prefix}…</code></td><td data-label="Access">${k.scope}</td><td data-label="Created">${when(k.createdAt)}</td><td data-label="Last used">${when(k.lastUsedAt)}</td>
<td class="actions"><a href="/app/settings/api-keys/${k.id}/revoke">Revoke<span class="sr-only"> ${k.name}</span></a></td></tr>`)}</tbody></table></div>`}
<h3>New API key</h3>
<form class="stacked" method="post" action="/app/settings/api-keys" novalidate>
${textField({ name: 'name', label: 'Name', value: form.name, hint: 'What the key is for, e.g. "shop backend".', errors: form.errors, maxlength: 100 })}
${scopeField(form.scope, form.errors)}
<button type="submit">Create API key</button>
</form></section>
${tokensSection(tokens)}
${notifications ? notificationsSection(notifications.weeklyDigest) : ''}
<section aria-labelledby="h-account"><h2 id="h-account">Account</h2>
<ul class="plain"><li><a href="/settings/profile">Profile: e-mail address</a></li></ul>
<h3 id="h-password">Change the password</h3>
<form class="stacked" method="post" action="/app/settings/password" novalidate aria-labelledby="h-password">
${passwordField('current_password', 'Current password', 'current-password', flash)}
${passwordField('password', 'New password', 'new-password', flash, 'At least 8 characters. Every other session is logged out.')}
${passwordField('password_confirmation', 'Confirm the new password', 'new-password', flash)}
<button type="submit">Change password</button>
</form>
<form method="post" action="/app/send-password-reset"><p>Forgot the current one? We e-mail you a link to choose a new password.</p>
<button type="submit" class="secondary">Send password reset link</button></form></section>`;
}

/** The user's e-mail switches (POST /app/settings/notifications). */
function notificationsSection(weeklyDigest: boolean): RawHtml {
  return html`<section aria-labelledby="h-notifications"><h2 id="h-notifications">E-mail notifications</h2>
<form class="stacked" method="post" action="/app/settings/notifications">
<div class="field"><label><input type="checkbox" name="weekly_digest" value="true"${weeklyDigest ? raw(' checked') : ''} aria-describedby="weekly-digest-hint"> Weekly digest</label>
<p class="hint" id="weekly-digest-hint">Every week, each chatbot's last 7 days against the 7 before: visitors, conversations, conversion and revenue after chat, top complaints.</p></div>
<button type="submit" class="secondary">Save notifications</button>
</form></section>`;
}

/** The answer to a created key: the one time the key itself is shown. */
export function createdKeyBody(key: KeyRow & { key: string }): RawHtml {
  return html`<h1>API key created</h1>
<section aria-labelledby="h-new-key"><h2 id="h-new-key">${key.name}</h2>
<p class="status" role="status">Copy the key now: it is shown only this once and cannot be shown again.</p>
<label for="new-key">Key</label>
<input id="new-key" class="copy" type="text" readonly value="${key.key}" aria-describedby="new-key-hint">
<p class="hint" id="new-key-hint">Select the field and copy it (Ctrl+C or ⌘C). Send it as <code>Authorization: Bearer …</code>.</p>
<p><a href="/app/settings">Back to settings</a></p></section>`;
}

export function revokeConfirmBody(key: KeyRow): RawHtml {
  return html`<h1>Revoke API key</h1>
<section aria-labelledby="h-revoke"><h2 id="h-revoke">${key.name || '(no name)'} <code>${key.prefix}…</code></h2>
<p>Every request with this key will be refused from now on. This cannot be undone.</p>
<form method="post" action="/app/settings/api-keys/${key.id}/revoke"><button type="submit" class="danger">Revoke this key</button>
<a href="/app/settings">Cancel</a></form></section>`;
}

/** The onboarding form: a new chatbot's name, language and A/B switch. */
export function chatbotForm(form: { name: string; language: string; abTest: boolean; errors: FieldErrors | null }): RawHtml {
  const abErrors = form.errors?.abTest ?? [];
  return html`<h1>Add a chatbot</h1>
<section aria-labelledby="h-new-bot"><h2 id="h-new-bot">Your chatbot</h2>
<form class="stacked" method="post" action="/app/chatbots" novalidate>
${textField({ name: 'name', label: 'Name', value: form.name, hint: 'Shown in the dashboard, up to 100 characters.', errors: form.errors, maxlength: 100 })}
${textField({ name: 'language', label: 'Language', value: form.language, hint: 'ISO 639-1 code, e.g. en, de, pt-BR.', errors: form.errors, maxlength: 10 })}
<div class="field check"><input id="abTest" name="abTest" type="checkbox" value="true"${form.abTest ? raw(' checked') : ''}>
<label for="abTest">A/B test: split visitors into a control and a test group</label>
${abErrors.length ? html`<p class="field-error" role="alert">${abErrors.join(' ')}</p>` : ''}</div>
<button type="submit">Create chatbot</button>
</form></section>`;
}

/** A chatbot's tracker snippet and where its numbers will appear. */
export function setupBody(bot: { id: string; name: string }, embed: { snippet: string; trackerUrl: string }, flash: Flash | null): RawHtml {
  return html`<h1>${bot.name}: set up</h1>
${setupNav(bot.id, 'tag')}
${flashMessages(flash)}
<section aria-labelledby="h-snippet"><h2 id="h-snippet">Tracker snippet</h2>
<p>Put these two tags on every page of the shop, before <code>&lt;/body&gt;</code>. Chatbot id: <code id="chatbot-id">${bot.id}</code></p>
<label for="snippet">Snippet</label>
<textarea id="snippet" class="copy" readonly rows="7">${embed.snippet}</textarea>
<p>${copyButton('snippet', 'Copy the tags')} <span class="copied" data-copied="snippet" role="status"></span></p>
<p class="hint">Copy them with the button, or select the field and copy it. The first tag keeps the chat widget's <code>chatlytics.track(…)</code> calls made before the tracker loaded (a shop whose Content-Security-Policy forbids inline scripts can leave it out and call the tracker once it loaded); the second loads the tracker from <code>${embed.trackerUrl}</code>.</p>
<p id="install-check" data-install-check="/api/dashboard/analytics/stats/live-events?chatbot_id=${bot.id}" role="status">Then open the shop in a browser: the <a href="/app/${bot.id}/live">Live</a> tab shows its events within seconds.</p>
<p><a href="/app/${bot.id}/analytics">Open ${bot.name}'s analytics</a> · <a href="/app/${bot.id}/tracking">Tracking settings: allowed origins, signed purchases</a> · <a href="/app">All chatbots</a></p></section>`;
}
