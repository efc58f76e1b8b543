import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import type { DashboardDeps } from '../deps.js';
import { Errors } from '../http/errors.js';
import {
  ChatbotDetail, ChatbotListItem, CreatedChatbot, Embed, embedFor, presentChatbot, presentChatbotDetail, SigningSecret,
} from './presenter.js';
import { ANY_CREDENTIAL_SECURITY, IdParams, Success, errorResponses } from '../http/schemas.js';
import { RevenueSettingsFields, revenueSettingsOf } from './revenue-settings.js';
import { RETENTION_DAYS } from '../privacy/retention-days.js';
import { DISPLAY_CURRENCIES } from '../html/money.js';

/**
 * One allowed origin, in the forms the tracking endpoint matches (services/ingest/README.md,
 * "Per-chatbot origins"): `https://shop.example`, `shop.example`, `*.shop.example`,
 * `localhost:5173`, or `*` (any).
 */
export const ORIGIN_ENTRY_PATTERN = '^(\\*|([Hh][Tt][Tt][Pp][Ss]?://)?(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?/?)$';

/** The settings the tracking endpoint enforces for a chatbot; the settings page checks its form against them too. */
export const TrackingSettingsFields = {
  allowedOrigins: Type.Optional(Type.Array(Type.String({ maxLength: 253, pattern: ORIGIN_ENTRY_PATTERN }), {
    maxItems: 50, description: "The shop's browser origins, e.g. `https://shop.example`, `*.shop.example`. Empty: any origin",
  })),
  maxPurchaseEur: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1e12, description: 'EUR cap of one purchase (default 100000); above it the purchase is set aside' })),
  requireSignedPurchases: Type.Optional(Type.Boolean({ description: 'Count only purchases signed with the chatbot\'s secret. Turning it on generates the secret when there is none' })),
  retentionDays: Type.Optional(Type.Integer({
    minimum: RETENTION_DAYS.min, maximum: RETENTION_DAYS.max,
    description: `Days a visitor's events and conversations are kept (default ${RETENTION_DAYS.default}); older ones are deleted within a day (README.md, "Personal data")`,
  })),
  holdoutPercent: Type.Optional(Type.Integer({
    minimum: 0, maximum: 50, description: 'Hide the assistant from this share of visitors (%) to measure the revenue it adds (the `lift` statistic); 0 (default): no holdout',
  })),
};

/** The rules of a new chatbot; the onboarding page (settings/routes.ts) checks its form against them too. */
export const ChatbotCreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'Shown in the dashboard' }),
  language: Type.Optional(Type.String({ pattern: '^[a-z]{2}(-[A-Z]{2})?$', default: 'en', description: 'ISO 639-1, e.g. `en`, `de`, `pt-BR`' })),
  abTest: Type.Optional(Type.Boolean({ default: false, description: 'Split visitors into control and test groups' })),
  ...TrackingSettingsFields,
}, { additionalProperties: false });

/** How the pages show a chatbot's money (html/money.ts); the settings page checks its form against it too. */
export const DisplaySettingsFields = {
  displayCurrency: Type.Optional(Type.Union(DISPLAY_CURRENCIES.map((code) => Type.Literal(code)), {
    description: 'The currency the app pages and the weekly digest show money in, converted from EUR at the ingest\'s fixed rates (a code of its table, e.g. `SEK`). The API keeps answering in EUR',
  })),
};

export const ChatbotSettingsBody = Type.Object({ ...TrackingSettingsFields, ...RevenueSettingsFields, ...DisplaySettingsFields }, { additionalProperties: false });

const trimOrigins = (origins: string[] | undefined) => origins?.map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);

/** Per the endpoint details in services/dashboard/docs/api.md, under /api/dashboard. */
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
      response: { 201: Success(Type.Object({ chatbot: CreatedChatbot, embed: Embed, signingSecret: Type.Optional(SigningSecret) })), ...errorResponses(400, 401, 403, 415, 422, 500) },
    },
  }, async (req, reply) => {
    const { name, language = 'en', abTest = false, allowedOrigins, maxPurchaseEur, requireSignedPurchases, retentionDays } = req.body;
    const accountId = principalOf(req).accountId;
    let row = await chatbots.create(accountId, {
      name: name.trim(), language, abTestEnabled: abTest, allowedOrigins: trimOrigins(allowedOrigins), maxPurchaseEur, requireSignedPurchases, retentionDays,
    });
    // Signed purchases asked for from the start: the secret is made now and shown this once.
    const signingSecret = requireSignedPurchases ? await chatbots.rotateSigningSecret(accountId, row.id) : null;
    if (signingSecret) row = { ...row, hasSigningSecret: true };
    reply.code(201);
    return {
      success: true as const,
      data: {
        chatbot: { ...presentChatbotDetail(row, deps.clock()), abTestEnabled: abTest },
        embed: embedFor(deps.config.ingestPublicUrl, row.id, abTest),
        ...(signingSecret ? { signingSecret } : {}),
      },
    };
  });

  app.patch('/chatbots/:id', {
    config: { auth: 'credential' },
    schema: {
      tags: ['dashboard'],
      summary: "Change a chatbot's tracking settings (allowed origins, purchase cap, signed purchases, revenue source and attribution window, shop webhook secrets, retention, holdout, display currency)",
      description: 'Fields left out keep their value. The tracking endpoint applies a change within 15 s. Turning signed purchases on for a chatbot without a secret generates one, returned this once as `signingSecret`.',
      security: ANY_CREDENTIAL_SECURITY,
      params: IdParams,
      body: ChatbotSettingsBody,
      response: {
        200: Success(Type.Object({ chatbot: ChatbotDetail, signingSecret: Type.Optional(SigningSecret) })),
        ...errorResponses(400, 401, 403, 404, 415, 422, 500),
      },
    },
  }, async (req) => {
    const accountId = principalOf(req).accountId;
    const { allowedOrigins, maxPurchaseEur, requireSignedPurchases, retentionDays, holdoutPercent, displayCurrency } = req.body;
    // The revenue rule and shop secrets first: the tracking update below answers with the row.
    if (!await deps.repos.ordersSettings.updateRevenueSettings(accountId, req.params.id, revenueSettingsOf(req.body))) throw Errors.notFound();
    let row = await chatbots.updateTrackingSettings(accountId, req.params.id, {
      allowedOrigins: trimOrigins(allowedOrigins), maxPurchaseEur, requireSignedPurchases, retentionDays, holdoutPercent, displayCurrency,
    });
    if (!row) throw Errors.notFound();
    const signingSecret = row.requireSignedPurchases && !row.hasSigningSecret ? await chatbots.rotateSigningSecret(accountId, row.id) : null;
    if (signingSecret) row = { ...row, hasSigningSecret: true };
    return { success: true as const, data: { chatbot: presentChatbotDetail(row, deps.clock()), ...(signingSecret ? { signingSecret } : {}) } };
  });

  app.post('/chatbots/:id/signing-secret', {
    config: { auth: 'credential' },
    schema: {
      tags: ['dashboard'],
      summary: 'Generate a new purchase signing secret (the old one stops verifying)',
      description: 'The secret is in this answer only; it is never shown again. Purchases signed with the old secret stop counting within 15 s.',
      security: ANY_CREDENTIAL_SECURITY,
      params: IdParams,
      response: { 201: Success(Type.Object({ signingSecret: SigningSecret })), ...errorResponses(401, 403, 404, 500) },
    },
  }, async (req, reply) => {
    const signingSecret = await chatbots.rotateSigningSecret(principalOf(req).accountId, req.params.id);
    if (!signingSecret) throw Errors.notFound();
    reply.code(201);
    return { success: true as const, data: { signingSecret } };
  });
};
