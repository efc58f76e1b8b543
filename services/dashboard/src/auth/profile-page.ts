import type { Flash } from './flash.js';
import { flashMessages } from '../html/components.js';
import { html } from '../html/html.js';
import { type PageOptions } from '../html/layout.js';

export function profilePage(input: { email: string; flash: Flash | null }): PageOptions {
  return {
    title: 'Profile settings',
    body: html`<h1>Profile settings</h1>
${flashMessages(input.flash)}
<dl><dt>E-mail address</dt><dd id="profile-email">${input.email}</dd></dl>
<h2>Password</h2>
<form method="post" action="/app/send-password-reset">
<p>We will e-mail you a link to choose a new password.</p>
<button type="submit">Send password reset link</button>
</form>
<form method="post" action="/logout"><button type="submit">Log out</button></form>`,
  };
}
