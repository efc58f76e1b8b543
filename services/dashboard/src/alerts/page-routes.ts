import Type from 'typebox';
import { Compile } from 'typebox/compile';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import { setFlash, takeFlash } from '../auth/flash.js';
import type { DashboardDeps } from '../deps.js';
import { Errors, type FieldErrors } from '../http/errors.js';
import { errorResponses, SESSION_SECURITY } from '../http/schemas.js';
import { fieldErrors, type SchemaError } from '../http/validation.js';
import { AlertCreateBody, AlertPatchBody, alertFieldErrors, newAlertInput } from './input.js';
import type { AlertRepository } from './repository.js';
import { chatbotChoice, sendAppPage } from '../html/layout.js';
import { alertsBody, createdAlertBody, EMPTY_ALERT_FORM, type AlertForm } from './views.js';

const Page = Type.String({ description: 'HTML page' });
const Redirect = Type.Null({ description: 'Redirect' });
const Params = Type.Object({ id: Type.String({ format: 'uuid' }) });
const AlertParams = Type.Object({ id: Type.String({ format: 'uuid' }), alertId: Type.String({ format: 'uuid' }) });
const Form = Type.Object({
  kind: Type.Optional(Type.String()), threshold: Type.Optional(Type.String()), window_minutes: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()), webhook_url: Type.Optional(Type.String()),
});
const checkBody = Compile(AlertCreateBody);
const checkPatch = Compile(AlertPatchBody);
const EditForm = Type.Object({
  threshold: Type.Optional(Type.String()), window_minutes: Type.Optional(Type.String()), email: Type.Optional(Type.String()), webhook_url: Type.Optional(Type.String()),
});

/** Form text as the API's body: empty fields left out, numbers as numbers (a non-number stays text and fails the schema). */
function bodyOf(f: AlertForm): Record<string, unknown> {
  const num = (v: string) => (v.trim() === '' ? undefined : Number.isFinite(Number(v)) ? Number(v) : v);
  const body: Record<string, unknown> = { kind: f.kind, email: f.email };
  if (num(f.threshold) !== undefined) body.threshold = num(f.threshold);
  if (num(f.window_minutes) !== undefined) body.window_minutes = num(f.window_minutes);
  if (f.webhook_url.trim() !== '') body.webhook_url = f.webhook_url.trim();
  return body;
}

/**
 * A chatbot's alerts page under /app/{id}/alerts (web session; forms under the origin rule):
 * the same repository and rules as the JSON API.
 */
export const alertPageRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps; alerts: AlertRepository }> = async (app, { deps, alerts }) => {
  const config = { auth: 'session' as const, page: true };
  const schema = <E extends object>(summary: string, extra: E, ok: Record<number, unknown> = { 200: Page }) => ({
    tags: ['pages'], summary, security: SESSION_SECURITY, ...extra, response: { ...ok, ...errorResponses(401, 403, 404, 422, 500) },
  });
  const chatbotOf = async (accountId: string, id: string) => {
    const all = await deps.repos.chatbots.listForAccount(accountId);
    const row = all.find((c) => c.id === id);
    if (!row) throw Errors.notFound();
    return { all: all.map(chatbotChoice), chatbot: { id: row.id, name: row.name, abTestEnabled: row.settings?.abTestEnabled === true } };
  };
  const page = async (accountId: string, id: string, flash: ReturnType<typeof takeFlash>, form: AlertForm) => {
    const { all, chatbot } = await chatbotOf(accountId, id);
    const rows = await alerts.listForChatbot(chatbot.id);
    const transitions = await alerts.recentTransitions(rows.map((r) => r.id));
    return {
      title: `${chatbot.name}: alerts`, chatbots: all, current: { chatbotId: chatbot.id, view: 'alerts' as const },
      body: alertsBody({ chatbot, alerts: rows, transitions, flash, form }),
    };
  };

  app.get('/app/:id/alerts', { config, schema: schema("A chatbot's alerts: states, transitions, the form for a new one", { params: Params }) }, async (req, reply) =>
    sendAppPage(reply, await page(principalOf(req).accountId, req.params.id, takeFlash(req, reply), EMPTY_ALERT_FORM)));

  app.post('/app/:id/alerts', { config, schema: schema('Create an alert, then show its secret once', { params: Params, body: Form }) }, async (req, reply) => {
    const { accountId } = principalOf(req);
    const { chatbot } = await chatbotOf(accountId, req.params.id);
    const b = req.body;
    const form: AlertForm = {
      kind: b.kind ?? '', threshold: b.threshold ?? '', window_minutes: b.window_minutes ?? '', email: b.email === 'true', webhook_url: b.webhook_url ?? '', errors: null,
    };
    const body = bodyOf(form);
    const refuse = async (errors: FieldErrors) => sendAppPage(reply, await page(accountId, chatbot.id, null, { ...form, errors }), 422);
    if (!checkBody.Check(body)) return refuse(fieldErrors(checkBody.Errors(body) as unknown as SchemaError[]));
    const more = alertFieldErrors(body.kind, body, { allowPrivate: deps.config.alerts.webhookAllowPrivate, abTestEnabled: chatbot.abTestEnabled });
    if (Object.keys(more).length > 0) return refuse(more);
    const row = await alerts.create(chatbot.id, newAlertInput(body));
    const { all } = await chatbotOf(accountId, chatbot.id);
    return sendAppPage(reply, { title: 'Alert created', chatbots: all, current: { chatbotId: chatbot.id, view: 'alerts' }, body: createdAlertBody(chatbot.id, row, row.secret) }, 201);
  });

  app.post('/app/:id/alerts/:alertId', { config, schema: schema('Change an alert, then back to the alerts', { params: AlertParams, body: EditForm }, { 302: Redirect }) }, async (req, reply) => {
    const { chatbot } = await chatbotOf(principalOf(req).accountId, req.params.id);
    const current = await alerts.find(chatbot.id, req.params.alertId);
    if (!current) throw Errors.notFound();
    const b = req.body;
    // A checkbox sends nothing when off; an empty URL removes the webhook; the threshold only where the kind has one.
    const patch = bodyOf({ kind: current.kind, threshold: current.threshold === null ? '' : b.threshold ?? '', window_minutes: b.window_minutes ?? '', email: b.email === 'true', webhook_url: b.webhook_url ?? '', errors: null });
    delete patch.kind;
    if (!('webhook_url' in patch)) patch.webhook_url = null;
    const errors = !checkPatch.Check(patch) ? fieldErrors(checkPatch.Errors(patch) as unknown as SchemaError[])
      : alertFieldErrors(current.kind, patch, { allowPrivate: deps.config.alerts.webhookAllowPrivate, abTestEnabled: true });
    if (Object.keys(errors).length > 0 || !checkPatch.Check(patch)) {
      setFlash(reply, { errors }, deps.cookies);
      return reply.redirect(`/app/${chatbot.id}/alerts`, 302);
    }
    await alerts.update(chatbot.id, current.id, {
      ...(patch.threshold !== undefined ? { threshold: patch.threshold } : {}),
      ...(patch.window_minutes !== undefined ? { windowMinutes: patch.window_minutes } : {}),
      email: patch.email ?? false, webhookUrl: patch.webhook_url ?? null,
    }, deps.clock());
    setFlash(reply, { status: 'Alert saved.' }, deps.cookies);
    return reply.redirect(`/app/${chatbot.id}/alerts`, 302);
  });

  app.post('/app/:id/alerts/:alertId/delete', { config, schema: schema('Delete an alert, then back to the alerts', { params: AlertParams }, { 302: Redirect }) }, async (req, reply) => {
    const { chatbot } = await chatbotOf(principalOf(req).accountId, req.params.id);
    if (!(await alerts.delete(chatbot.id, req.params.alertId))) throw Errors.notFound();
    setFlash(reply, { status: 'Alert deleted.' }, deps.cookies);
    return reply.redirect(`/app/${chatbot.id}/alerts`, 302);
  });
};
