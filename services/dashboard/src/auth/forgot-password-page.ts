import type { Flash } from './flash.js';
import { flashMessages, field } from '../html/components.js';
import { html } from '../html/html.js';
import { type PageOptions } from '../html/layout.js';

export function forgotPasswordPage(flash: Flash | null): PageOptions {
  return {
    title: 'Forgot password',
    body: html`<h1>Forgot your password?</h1>
<p>Enter your e-mail address and we will send you a link to choose a new password.</p>
${flashMessages(flash)}
<form method="post" action="/forgot-password">
${field({ name: 'email', label: 'E-mail address', type: 'email', autocomplete: 'email', value: flash?.old?.email, flash })}
<button type="submit">Send password reset link</button>
</form>
<nav><a href="/login">Back to log in</a></nav>`,
  };
}
