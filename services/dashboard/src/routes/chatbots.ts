import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import type { DashboardDeps } from '../deps.js';
import { Errors } from '../errors.js';
import {
  ChatbotDetail, ChatbotListItem, CreatedChatbot, Embed, embedFor, presentChatbot, presentChatbotDetail,
} from '../presenters/chatbot-presenter.js';
import { ANY_CREDENTIAL_SECURITY, IdParams, Success, errorResponses } from '../schemas/common.js';

/** The rules of a new chatbot; the onboarding page (src/web/manage-routes.ts) checks its form against them too. */
export const ChatbotCreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'Shown in the dashboard' }),
  language: Type.Optional(Type.String({ pattern: '^[a-z]{2}(-[A-Z]{2})?$', default: 'en', description: 'ISO 639-1, e.g. `en`, `de`, `pt-BR`' })),
  abTest: Type.Optional(Type.Boolean({ default: false, description: 'Split visitors into control and test groups' })),
}, { additionalProperties: false });

/** Per the endpoint details in services/dashboard/README.md, under /api/dashboard. */
export const chatbotRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps }> = async (app, { deps }) => {
  const { chatbots } = deps.repos;

  app.get('/chatbots', {
    config: { auth: 'credential' },
    schema: {
      tags: ['dashboard'],
      summary: "List the account's chatbots with conversation counts",
      security: ANY_CREDENTIAL_SECURITY,
      response: { 200: Success(Type.Object({ chatbots: Type.Array(ChatbotListItem) })), ...errorResponses(401, 500) },
    },
  }, async (req) => {
    const rows = await chatbots.listForAccount(principalOf(req).accountId);
    const now = deps.clock();
    return { success: true as const, data: { chatbots: rows.map((r) => presentChatbot(r, now)) } };
  });

  app.get('/chatbots/:id', {
    config: { auth: 'credential' },
    schema: {
      tags: ['dashboard'],
      summary: 'One chatbot of the account',
      security: ANY_CREDENTIAL_SECURITY,
      params: IdParams,
      response: { 200: Success(Type.Object({ chatbot: ChatbotDetail })), ...errorResponses(401, 404, 500) },
    },
  }, async (req) => {
    const row = await chatbots.findForAccount(principalOf(req).accountId, req.params.id);
    if (!row) throw Errors.notFound();
    return { success: true as const, data: { chatbot: presentChatbotDetail(row, deps.clock()) } };
  });

  app.post('/chatbots', {
    config: { auth: 'credential' },
    schema: {
      tags: ['dashboard'],
      summary: 'Create a chatbot; the answer carries its tracker snippet',
      security: ANY_CREDENTIAL_SECURITY,
      body: ChatbotCreateBody,
      response: { 201: Success(Type.Object({ chatbot: CreatedChatbot, embed: Embed })), ...errorResponses(400, 401, 403, 415, 422, 500) },
    },
  }, async (req, reply) => {
    const { name, language = 'en', abTest = false } = req.body;
    const row = await chatbots.create(principalOf(req).accountId, { name: name.trim(), language, abTestEnabled: abTest });
    reply.code(201);
    return {
      success: true as const,
      data: { chatbot: { ...presentChatbotDetail(row, deps.clock()), abTestEnabled: abTest }, embed: embedFor(deps.config.ingestPublicUrl, row.id, abTest) },
    };
  });
};
