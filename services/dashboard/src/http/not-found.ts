import type { FastifyReply, FastifyRequest } from 'fastify';
import { wantsJson } from './origin.js';
import { MESSAGES } from './errors.js';
import { html } from '../html/html.js';
import { sendAppPage } from '../html/layout.js';

/**
 * The 404 of a path outside the dashboard's API prefixes, in the pages' error shape: a small
 * HTML page for a browser, the dashboard's JSON error body for a client that asks for JSON.
 */
export function pagesNotFound(req: FastifyRequest, reply: FastifyReply) {
  if (wantsJson(req)) return reply.code(404).send({ success: false, message: MESSAGES.notFound });
  return sendAppPage(reply, {
    title: 'Not found', minimal: true,
    body: html`<section class="dead-end"><h1>${MESSAGES.notFound}</h1><p>There is nothing at this address.</p>
<p class="way-back"><a class="button" href="/app">Back to your chatbots</a> <a href="/login">Log in</a></p></section>`,
  }, 404);
}
