import type { FastifyReply, FastifyRequest } from 'fastify';
import { html } from './html.js';
import { sendAppPage } from './layout.js';

/** What a person can do about each error of a page or form post. */
const HINTS: Record<number, string> = {
  400: 'The form could not be read. Go back and send it again.',
  403: 'This form was sent from a page of another address than the dashboard\'s. Open the dashboard at its own address and try again.',
  404: 'There is nothing here, or it belongs to another account.',
  413: 'The form was too large.',
  415: 'The form was sent in a format the dashboard does not read.',
  422: 'Some of the values given are not valid.',
  429: 'Too many attempts from here. Please wait a few minutes and try again.',
  500: 'Something went wrong on our side. Please try again in a moment.',
};

/**
 * The HTML answer of a page or form post that failed (route config `page`): a guest asking for
 * a page goes to the log-in form; everything else is a small page with the message and, for a
 * validation error, every field's messages. 5xx pages carry the safe message only.
 */
export function errorPage(req: FastifyRequest, reply: FastifyReply, err: { statusCode: number; message: string; errors?: Record<string, string[]> }) {
  if (err.statusCode === 401 && req.method === 'GET') return reply.redirect('/login', 302);
  const fieldMessages = Object.values(err.errors ?? {}).flat();
  // The app's layout with a way back: /app answers a session with the chatbots, a guest with the log-in form.
  return sendAppPage(reply, {
    title: err.message, minimal: true,
    body: html`<section class="dead-end"><h1>${err.message}</h1>
<p>${HINTS[err.statusCode] ?? ''}</p>
${fieldMessages.length ? html`<ul class="errors" role="alert">${fieldMessages.map((m) => html`<li>${m}</li>`)}</ul>` : ''}
<p class="way-back"><a class="button" href="/app">Back to your chatbots</a> <a href="/login">Log in</a></p></section>`,
  }, err.statusCode);
}
