import type { Flash } from './flash.js';
import { MIN_PASSWORD_LENGTH } from './password-rules.js';
import { flashMessages, field } from '../html/components.js';
import { html } from '../html/html.js';
import { type PageOptions } from '../html/layout.js';

export function resetPasswordPage(input: { token: string; email: string; flash: Flash | null }): PageOptions {
  const { flash } = input;
  return {
    title: 'Reset password',
    noReferrer: true,
    body: html`<h1>Choose a new password</h1>
${flashMessages(flash)}
<form method="post" action="/reset-password">
<input type="hidden" name="token" value="${input.token}">
${field({ name: 'email', label: 'E-mail address', type: 'email', autocomplete: 'username', value: flash?.old?.email ?? input.email, flash })}
${field({ name: 'password', label: `New password (at least ${MIN_PASSWORD_LENGTH} characters)`, type: 'password', autocomplete: 'new-password', flash })}
${field({ name: 'password_confirmation', label: 'Confirm new password', type: 'password', autocomplete: 'new-password', flash })}
<button type="submit">Reset password</button>
</form>`,
  };
}
