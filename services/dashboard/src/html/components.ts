import { html, type RawHtml } from './html.js';

/** What the previous form post left for its page (the flash cookie, auth/flash.ts): a status, field errors, the input. */
export interface FormMessages {
  status?: string;
  errors?: Record<string, string[]>;
  old?: Record<string, string>;
}

/** The status message and the error summary of the previous form post (flash). */
export function flashMessages(flash: FormMessages | null): RawHtml {
  if (!flash) return html``;
  const errors = Object.values(flash.errors ?? {}).flat();
  return html`${flash.status ? html`<p class="status" role="status">${flash.status}</p>` : ''}
${errors.length ? html`<div class="errors" role="alert"><p>Please check the following:</p><ul>${errors.map((e) => html`<li>${e}</li>`)}</ul></div>` : ''}`;
}

export interface FieldOptions {
  name: string;
  label: string;
  type: 'email' | 'password' | 'text';
  value?: string;
  autocomplete: string;
  flash: FormMessages | null;
}

/** A labelled input; its own errors are tied to it for screen readers (aria-describedby). */
export function field(o: FieldOptions): RawHtml {
  const errors = o.flash?.errors?.[o.name] ?? [];
  const errorId = `${o.name}-error`;
  return html`<label for="${o.name}">${o.label}</label>
<input id="${o.name}" name="${o.name}" type="${o.type}" required autocomplete="${o.autocomplete}"${o.value ? html` value="${o.value}"` : ''}${errors.length ? html` aria-invalid="true" aria-describedby="${errorId}"` : ''}>
${errors.length ? html`<p class="field-error" id="${errorId}">${errors.join(' ')}</p>` : ''}`;
}

/** The Setup tab's two pages: the tag and the tracking settings. */
export function setupNav(chatbotId: string, current: 'tag' | 'tracking'): RawHtml {
  const item = (key: 'tag' | 'tracking', href: string, label: string) =>
    html`<a href="${href}"${key === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="subtabs" aria-label="Setup">${item('tag', `/app/${chatbotId}/setup`, 'Tag')}${item('tracking', `/app/${chatbotId}/tracking`, 'Tracking settings')}</nav>`;
}

/** A button that copies the field `target` (app.js); without scripts it stays hidden and the field is selectable. */
export const copyButton = (target: string, label: string) =>
  html`<button type="button" class="secondary copy-button" data-copy="${target}">${label}</button>`;

/**
 * A state's badge, every state styled: good (`ok`, `completed`, `active`), bad (`firing`,
 * `failed`, `error`), in progress (`processing`, `pending`), anything else quiet. The word is
 * the meaning; the colour repeats it.
 */
export function stateBadge(state: string): RawHtml {
  const tone = ['ok', 'completed', 'active'].includes(state) ? 'ok'
    : ['firing', 'failed', 'error'].includes(state) ? 'danger'
      : ['processing', 'pending', 'running'].includes(state) ? 'warn' : 'off';
  return html`<span class="badge ${tone}" data-state="${state}">${state}</span>`;
}
