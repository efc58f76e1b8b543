import Type, { type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../auth/auth-plugin.js';
import { siteOrigin } from '../http/origin.js';
import { setFlash, takeFlash } from '../auth/flash.js';
import type { DashboardDeps } from '../deps.js';
import type { DigestRepository } from '../digest/repository.js';
import { Errors, type FieldErrors } from '../http/errors.js';
import { embedFor } from '../chatbots/presenter.js';
import { ApiKeyCreateBody } from './api-key-routes.js';
import { ChatbotCreateBody } from '../chatbots/routes.js';
import { errorResponses, SESSION_SECURITY } from '../http/schemas.js';
import { fieldErrors, type SchemaError } from '../http/validation.js';
import { chatbotChoice, sendAppPage, type AppPageOptions } from '../html/layout.js';
import { chatbotForm, createdKeyBody, revokeConfirmBody, settingsBody, setupBody } from './views.js';

const Page = Type.String({ description: 'HTML page' });
const Redirect = Type.Null({ description: 'Redirect' });
const KeyParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
// Form fields arrive as text; the API's own body schemas judge them in the handler, so a bad
// value comes back in the form (422) rather than as the generic error page.
const KeyForm = Type.Object({ name: Type.Optional(Type.String()), scope: Type.Optional(Type.String()) });
const NotificationsForm = Type.Optional(Type.Object({ weekly_digest: Type.Optional(Type.String({ maxLength: 10 })) }));
const ChatbotForm = Type.Object({ name: Type.Optional(Type.String()), language: Type.Optional(Type.String()), abTest: Type.Optional(Type.String()) });

/** The field errors of `value` under one of the API's body schemas, or null when it passes. */
function checker(schema: TSchema) {
  const check = Compile(schema);
  return (value: unknown): FieldErrors | null => (check.Check(value) ? null : fieldErrors(check.Errors(value) as unknown as SchemaError[]));
}

/**
 * The account pages under /app (web session; see the pages in services/dashboard/docs/api.md):
 * settings with the API keys, and onboarding of a chatbot with its tracker snippet. They create
 * and revoke through the same repositories and rules as the JSON management API.
 */
export const manageRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps; digests: DigestRepository }> = async (app, { deps, digests }) => {
  const { credentials, chatbots } = deps.repos;
  const checkKey = checker(ApiKeyCreateBody);
  const checkChatbot = checker(ChatbotCreateBody);
  const config = { auth: 'session' as const, page: true };
  const schema = <E extends object = object>(summary: string, extra?: E, ok: Record<number, TSchema> = { 200: Page }) => ({
    tags: ['pages'], summary, security: SESSION_SECURITY, ...(extra as E),
    response: { ...ok, ...errorResponses(401, 403, 404, 422, 500) },
  });
  const frame = async (accountId: string): Promise<Pick<AppPageOptions, 'chatbots'>> =>
    ({ chatbots: (await chatbots.listForAccount(accountId)).map(chatbotChoice) });
  const keyOf = async (accountId: string, id: string) => {
    const key = (await credentials.listApiKeys(accountId)).find((k) => k.id === id);
    if (!key) throw Errors.notFound();
    return key;
  };
  const settings = async (req: FastifyRequest, flash: ReturnType<typeof takeFlash>, form = { name: '', scope: 'read', errors: null as FieldErrors | null }) => {
    const { accountId, userId } = principalOf(req);
    const tokens = userId ? await credentials.listAuthTokens(userId, deps.clock()) : [];
    const weeklyDigest = userId ? await digests.enabled(userId) : null;
    return {
      title: 'Settings', ...(await frame(accountId)),
      body: settingsBody(await credentials.listApiKeys(accountId), tokens, flash, form, weeklyDigest === null ? undefined : { weeklyDigest }),
    };
  };

  app.get('/app/settings', { config, schema: schema('Settings: API keys, auth tokens, notifications, password') }, async (req, reply) =>
    sendAppPage(reply, await settings(req, takeFlash(req, reply))));

  app.post('/app/settings/notifications', {
    config, schema: schema('Switch the weekly digest, back to the settings', { body: NotificationsForm }, { 302: Redirect }),
  }, async (req, reply) => {
    const { userId } = principalOf(req);
    // An unchecked box is absent from the form: absent means off.
    const on = req.body?.weekly_digest === 'true';
    if (!userId || !(await digests.setEnabled(userId, on))) throw Errors.notFound();
    setFlash(reply, { status: on ? 'The weekly digest is on.' : 'The weekly digest is off.' }, deps.cookies);
    return reply.redirect('/app/settings', 302);
  });

  app.post('/app/settings/api-keys', {
    config, schema: schema('Create an API key; the page shows it once', { body: KeyForm }, { 201: Page }),
  }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const scope = req.body.scope || 'read';
    const input = { name: req.body.name ?? '', scope };
    const errors = checkKey(input);
    if (errors) return sendAppPage(reply, await settings(req, null, { name: input.name, scope, errors }), 422);
    const created = await credentials.createApiKey({ accountId, name: input.name.trim(), scope: scope === 'manage' ? 'manage' : 'read' });
    return sendAppPage(reply, { title: 'API key created', ...(await frame(accountId)), body: createdKeyBody(created) }, 201);
  });

  app.get('/app/settings/api-keys/:id/revoke', { config, schema: schema('Confirm revoking an API key', { params: KeyParams }) }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const key = await keyOf(accountId, req.params.id);
    return sendAppPage(reply, { title: 'Revoke API key', ...(await frame(accountId)), body: revokeConfirmBody(key) });
  });

  app.post('/app/settings/api-keys/:id/revoke', {
    config, schema: schema('Revoke an API key, back to the settings', { params: KeyParams }, { 302: Redirect }),
  }, async (req, reply) => {
    const revoked = await credentials.revokeApiKey(principalOf(req).accountId, req.params.id);
    if (!revoked) throw Errors.notFound();
    setFlash(reply, { status: `API key "${revoked.name || revoked.prefix}" revoked.` }, deps.cookies);
    return reply.redirect('/app/settings', 302);
  });

  app.post('/app/settings/tokens/:id/revoke', {
    config, schema: schema('Revoke one of your auth tokens, back to the settings', { params: KeyParams }, { 302: Redirect }),
  }, async (req, reply) => {
    const { userId } = principalOf(req);
    const revoked = userId ? await credentials.revokeAuthToken(userId, req.params.id) : null;
    if (!revoked) throw Errors.notFound();
    setFlash(reply, { status: `Auth token "${revoked.name || revoked.prefix || 'ct_'}" revoked.` }, deps.cookies);
    return reply.redirect('/app/settings', 302);
  });

  app.get('/app/chatbots/new', { config, schema: schema('Add a chatbot: the form') }, async (req, reply) => {
    const { accountId } = principalOf(req);
    return sendAppPage(reply, { title: 'Add a chatbot', ...(await frame(accountId)), body: chatbotForm({ name: '', language: 'en', abTest: false, errors: null }) });
  });

  app.post('/app/chatbots', {
    config, schema: schema('Create a chatbot, then its snippet page', { body: ChatbotForm }, { 302: Redirect }),
  }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const name = req.body.name ?? '';
    const language = (req.body.language ?? '').trim();
    const abTest = req.body.abTest === 'true';
    const input = { name, abTest, ...(language ? { language } : {}) };
    const errors = checkChatbot(input);
    if (errors) {
      return sendAppPage(reply, { title: 'Add a chatbot', ...(await frame(accountId)), body: chatbotForm({ name, language, abTest, errors }) }, 422);
    }
    const row = await chatbots.create(accountId, { name: name.trim(), language: language || 'en', abTestEnabled: abTest });
    setFlash(reply, { status: 'Chatbot created. Embed the snippet below to start tracking.' }, deps.cookies);
    return reply.redirect(`/app/${row.id}/setup`, 302);
  });

  // A local start (neither INGEST_PUBLIC_URL nor APP_URL set) serves the tracker at the loopback
  // address the browser used, as the origin rule accepts it; a deployment names its ingest URL.
  const trackerBase = (req: FastifyRequest) =>
    deps.origins.loopbackSameOrigin && deps.config.ingestPublicUrl === deps.config.appUrl ? siteOrigin(req, deps.origins) : deps.config.ingestPublicUrl;

  app.get('/app/:id/setup', { config, schema: schema("A chatbot's tracker snippet", { params: KeyParams }) }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const row = await chatbots.findForAccount(accountId, req.params.id);
    if (!row) throw Errors.notFound();
    const embed = embedFor(trackerBase(req), row.id, row.settings?.abTestEnabled === true);
    return sendAppPage(reply, { title: `${row.name}: set up`, ...(await frame(accountId)), current: { chatbotId: row.id, view: 'setup' }, body: setupBody(row, embed, takeFlash(req, reply)) });
  });
};
