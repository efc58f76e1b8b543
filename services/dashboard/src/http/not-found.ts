import type { FastifyReply, FastifyRequest } from 'fastify';
import { wantsJson } from './origin.js';
import { MESSAGES } from './errors.js';
import { html } from '../html/html.js';
import { sendPage } from '../html/layout.js';

/**
 * The 404 of a path outside the dashboard's API prefixes, in the pages' error shape: a small
 * HTML page for a browser, the dashboard's JSON error body for a client that asks for JSON.
 */
export function pagesNotFound(req: FastifyRequest, reply: FastifyReply) {
  if (wantsJson(req)) return reply.code(404).send({ success: false, message: MESSAGES.notFound });
  return sendPage(reply, {
    title: 'Not found',
    body: html`<h1>${MESSAGES.notFound}</h1><nav><a href="/login">Log in</a></nav>`,
  }, 404);
}
