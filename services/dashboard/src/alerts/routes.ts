import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import type { DashboardDeps } from '../deps.js';
import { Errors } from '../http/errors.js';
import { ANY_CREDENTIAL_SECURITY, IdParams, Success, errorResponses } from '../http/schemas.js';
import { AlertCreateBody, AlertPatchBody, alertFieldErrors, newAlertInput } from './input.js';
import { Alert, presentAlert } from './presenter.js';
import type { AlertRepository } from './repository.js';

const AlertParams = Type.Object({ id: Type.String({ format: 'uuid' }), alertId: Type.String({ format: 'uuid' }) });
const common = { tags: ['alerts'], security: ANY_CREDENTIAL_SECURITY };

/**
 * A chatbot's alerts under /api/dashboard/chatbots/{id}/alerts (services/dashboard/docs/api.md,
 * "Alerts"). Another account's chatbot, or an alert of another chatbot, answers 404.
 */
export const alertRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps; alerts: AlertRepository }> = async (app, { deps, alerts }) => {
  const ownChatbot = async (accountId: string, chatbotId: string) => {
    const chatbot = await deps.repos.chatbots.findForAccount(accountId, chatbotId);
    if (!chatbot) throw Errors.notFound();
    return { id: chatbot.id, abTestEnabled: chatbot.settings?.abTestEnabled === true };
  };
  const withTransitions = async (rows: Awaited<ReturnType<AlertRepository['listForChatbot']>>) => {
    const transitions = await alerts.recentTransitions(rows.map((r) => r.id));
    return rows.map((r) => presentAlert(r, transitions.get(r.id) ?? []));
  };
  const allowPrivate = deps.config.alerts.webhookAllowPrivate;

  app.get('/chatbots/:id/alerts', {
    config: { auth: 'credential' },
    schema: { ...common, summary: "A chatbot's alerts, each with its state and last 20 transitions", params: IdParams, response: { 200: Success(Type.Object({ alerts: Type.Array(Alert) })), ...errorResponses(401, 404, 500) } },
  }, async (req) => {
    const chatbot = await ownChatbot(principalOf(req).accountId, req.params.id);
    return { success: true as const, data: { alerts: await withTransitions(await alerts.listForChatbot(chatbot.id)) } };
  });

  app.post('/chatbots/:id/alerts', {
    config: { auth: 'credential' },
    schema: {
      ...common, summary: "Create an alert; the answer carries the webhook signing secret, shown once", params: IdParams, body: AlertCreateBody,
      response: { 201: Success(Type.Object({ alert: Alert, secret: Type.String({ description: 'whsec_…: signs webhook bodies; shown in this response only' }) })), ...errorResponses(400, 401, 403, 404, 415, 422, 500) },
    },
  }, async (req, reply) => {
    const chatbot = await ownChatbot(principalOf(req).accountId, req.params.id);
    const b = req.body;
    const errors = alertFieldErrors(b.kind, b, { allowPrivate, abTestEnabled: chatbot.abTestEnabled });
    if (Object.keys(errors).length > 0) throw Errors.validation(errors);
    const row = await alerts.create(chatbot.id, newAlertInput(b));
    reply.code(201);
    return { success: true as const, data: { alert: presentAlert(row, []), secret: row.secret } };
  });

  app.patch('/chatbots/:id/alerts/:alertId', {
    config: { auth: 'credential' },
    schema: { ...common, summary: "Change an alert's threshold, window or channels (its kind and secret stay)", params: AlertParams, body: AlertPatchBody, response: { 200: Success(Type.Object({ alert: Alert })), ...errorResponses(400, 401, 403, 404, 415, 422, 500) } },
  }, async (req) => {
    const chatbot = await ownChatbot(principalOf(req).accountId, req.params.id);
    const current = await alerts.find(chatbot.id, req.params.alertId);
    if (!current) throw Errors.notFound();
    const b = req.body;
    const errors = alertFieldErrors(current.kind, b, { allowPrivate, abTestEnabled: true });
    if (Object.keys(errors).length > 0) throw Errors.validation(errors);
    const row = await alerts.update(chatbot.id, current.id, {
      ...(b.threshold !== undefined ? { threshold: b.threshold } : {}),
      ...(b.window_minutes !== undefined ? { windowMinutes: b.window_minutes } : {}),
      ...(b.email !== undefined ? { email: b.email } : {}),
      ...(b.webhook_url !== undefined ? { webhookUrl: b.webhook_url } : {}),
    }, deps.clock());
    if (!row) throw Errors.notFound();
    return { success: true as const, data: { alert: (await withTransitions([row]))[0] } };
  });

  app.delete('/chatbots/:id/alerts/:alertId', {
    config: { auth: 'credential' },
    schema: { ...common, summary: 'Delete an alert, its transitions and its undelivered webhooks', params: AlertParams, response: { 200: Success(Type.Object({ deleted: Type.Literal(true) })), ...errorResponses(401, 403, 404, 500) } },
  }, async (req) => {
    const chatbot = await ownChatbot(principalOf(req).accountId, req.params.id);
    if (!(await alerts.delete(chatbot.id, req.params.alertId))) throw Errors.notFound();
    return { success: true as const, data: { deleted: true as const } };
  });
};
