import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import type { DashboardDeps } from '../deps.js';
import { Errors } from '../http/errors.js';
import { html } from '../html/html.js';
import { sendPage } from '../html/layout.js';
import { ANY_CREDENTIAL_SECURITY, Success, errorResponses } from '../http/schemas.js';
import type { DigestRepository } from './repository.js';
import { UNSUBSCRIBE_PATH, type UnsubscribeSigner } from './unsubscribe.js';

const Notifications = Type.Object({ weekly_digest: Type.Boolean({ description: 'The weekly digest e-mail (on for new users)' }) }, { additionalProperties: false });

export interface NotificationRoutesOptions { deps: DashboardDeps; digests: DigestRepository }

/**
 * GET/PUT /notifications under /api/dashboard: the caller's own e-mail switches. They belong to
 * a person, so an account's API key (no user) is refused like on session-only routes.
 */
export const notificationRoutes: FastifyPluginAsyncTypebox<NotificationRoutesOptions> = async (app, { digests }) => {
  const common = { tags: ['notifications'], security: ANY_CREDENTIAL_SECURITY };
  const userOf = (req: Parameters<typeof principalOf>[0]) => {
    const { userId } = principalOf(req);
    if (!userId) throw Errors.sessionRequired();
    return userId;
  };

  app.get('/notifications', {
    config: { auth: 'credential' },
    schema: { ...common, summary: "The caller's e-mail notifications", response: { 200: Success(Notifications), ...errorResponses(401, 404, 500) } },
  }, async (req) => {
    const on = await digests.enabled(userOf(req));
    if (on === null) throw Errors.notFound();
    return { success: true as const, data: { weekly_digest: on } };
  });

  app.put('/notifications', {
    config: { auth: 'credential' },
    schema: { ...common, summary: "Switch the caller's e-mail notifications", body: Notifications, response: { 200: Success(Notifications), ...errorResponses(400, 401, 403, 404, 415, 422, 500) } },
  }, async (req) => {
    if (!(await digests.setEnabled(userOf(req), req.body.weekly_digest))) throw Errors.notFound();
    return { success: true as const, data: { weekly_digest: req.body.weekly_digest } };
  });
};

const Page = Type.String({ description: 'HTML page' });
const LinkQuery = Type.Object({ u: Type.String({ format: 'uuid' }), s: Type.String({ minLength: 1, maxLength: 100 }) });
// RFC 8058 one-click clients post `List-Unsubscribe=One-Click`; the confirm page's form posts the same.
const OneClickBody = Type.Optional(Type.Object({ 'List-Unsubscribe': Type.Optional(Type.String({ maxLength: 100 })) }));

export interface UnsubscribeRoutesOptions { digests: DigestRepository; signer: UnsubscribeSigner }

/**
 * The digest's unsubscribe link, without login: the signature is the authority. GET only shows
 * a confirmation (mail scanners open links; opening must not unsubscribe); POST switches the
 * digest off: from that page, or straight from a mail client's one-click button, whose POST
 * comes from the provider's servers, with no cookie and possibly another Origin.
 */
export const unsubscribeRoutes: FastifyPluginAsyncTypebox<UnsubscribeRoutesOptions> = async (app, { digests, signer }) => {
  const schema = (summary: string) => ({
    tags: ['pages'], summary, querystring: LinkQuery, response: { 200: Page, ...errorResponses(404, 422, 500) },
  });
  // RFC 8058 allows a multipart one-click body; its only field is fixed, so it is not read.
  app.addContentTypeParser('multipart/form-data', { parseAs: 'string', bodyLimit: 4096 }, (_req, _body, done) => done(null, {}));
  // The URL carries a signature that works without login: not in the request log at info level.
  const route = { config: { page: true }, logLevel: 'warn' as const };
  const check = async (q: { u: string; s: string }) => {
    if (!signer.verify(q.u, q.s) || (await digests.enabled(q.u)) === null) throw Errors.notFound();
  };

  app.get(UNSUBSCRIBE_PATH, { ...route, schema: schema('Confirm unsubscribing from the weekly digest (link of the digest e-mail)') }, async (req, reply) => {
    await check(req.query);
    const action = `${UNSUBSCRIBE_PATH}?u=${encodeURIComponent(req.query.u)}&s=${encodeURIComponent(req.query.s)}`;
    return sendPage(reply, {
      title: 'Unsubscribe', noReferrer: true,
      body: html`<h1>Unsubscribe from the weekly digest</h1>
<p>You will no longer receive the weekly Chatlytics digest e-mail. You can switch it on again in the settings.</p>
<form method="post" action="${action}"><input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Unsubscribe</button></form>`,
    });
  });

  app.post(UNSUBSCRIBE_PATH, { ...route, schema: { ...schema('Unsubscribe from the weekly digest (RFC 8058 one-click; no login)'), body: OneClickBody } }, async (req, reply) => {
    await check(req.query);
    await digests.setEnabled(req.query.u, false);
    return sendPage(reply, {
      title: 'Unsubscribed', noReferrer: true,
      body: html`<h1>You are unsubscribed</h1>
<p role="status">The weekly digest is switched off. You can switch it on again in the <a href="/app/settings">settings</a>.</p>`,
    });
  });
};
