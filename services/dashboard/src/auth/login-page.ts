import type { Flash } from './flash.js';
import { flashMessages, field } from '../html/components.js';
import { html } from '../html/html.js';
import { type PageOptions } from '../html/layout.js';

export function loginPage(flash: Flash | null): PageOptions {
  return {
    title: 'Log in',
    body: html`<h1>Log in</h1>
${flashMessages(flash)}
<form method="post" action="/login">
${field({ name: 'email', label: 'E-mail address', type: 'email', autocomplete: 'username', value: flash?.old?.email, flash })}
${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', flash })}
<button type="submit">Log in</button>
</form>
<nav><a href="/forgot-password">Forgot your password?</a></nav>`,
  };
}
