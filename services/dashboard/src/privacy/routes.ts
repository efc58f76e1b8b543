import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { TRACKING_LIMITS } from '@chatlytics/events';
import { principalOf } from '../auth/auth-plugin.js';
import type { DashboardDeps } from '../deps.js';
import { Errors } from '../http/errors.js';
import { ANY_CREDENTIAL_SECURITY, Nullable, Success, errorResponses } from '../http/schemas.js';
import type { ErasureService } from './erasure.js';
import type { ErasureRow, PrivacyRepository } from './repository.js';
import type { VisitorStore } from './visitor-store.js';

const VisitorParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Chatbot UUID' }),
  token: Type.String({
    minLength: TRACKING_LIMITS.tokenMinLength, maxLength: TRACKING_LIMITS.tokenMaxLength, pattern: TRACKING_LIMITS.tokenPattern,
    description: "The visitor's tracker token",
  }),
});
const ReceiptParams = Type.Object({ id: Type.String({ format: 'uuid' }), receipt: Type.String({ format: 'uuid', description: 'The erasure receipt' }) });

const Counts = Type.Object({
  conversations: Type.Optional(Type.Integer()), messages: Type.Optional(Type.Integer()), analyses: Type.Optional(Type.Integer()),
  events: Type.Optional(Type.Integer()), tokenIds: Type.Optional(Type.Integer()), orders: Type.Optional(Type.Integer()),
}, { description: 'Rows removed, per kind' });

const Erasure = Type.Object({
  receipt: Type.String({ format: 'uuid' }),
  chatbotId: Type.String({ format: 'uuid' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('complete')], { description: '`complete` once no store holds a row of the visitor' }),
  requestedAt: Type.String({ format: 'date-time' }),
  completedAt: Nullable(Type.String({ format: 'date-time' })),
  removed: Counts,
});

const AnyObject = Type.Record(Type.String(), Type.Unknown());
const ExportDocument = Type.Object({
  chatbotId: Type.String(),
  token: Type.String(),
  exportedAt: Type.String({ format: 'date-time' }),
  events: Type.Array(AnyObject, { description: 'Every stored event of the token, oldest first, with the columns of clickhouse/README.md' }),
  rejectedEvents: Type.Array(AnyObject, { description: 'Its rows of events_rejected (purchases set aside)' }),
  orders: Type.Array(AnyObject, { description: 'The shop\'s orders that name the token, each in its latest state (services/ingest/README.md, "Orders")' }),
  conversations: Type.Array(AnyObject, { description: 'Its conversations, each with `messages` and `analysis`' }),
});

const present = (r: ErasureRow) => ({
  receipt: r.id, chatbotId: r.chatbotId, status: r.status, requestedAt: r.requestedAt.toISOString(),
  completedAt: r.completedAt?.toISOString() ?? null, removed: r.removed,
});

/** Erasure and export of one visitor (README.md, "Personal data"), under /api/dashboard. */
export const privacyRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps; privacy: PrivacyRepository; store: VisitorStore; erasure: ErasureService }> = async (app, opts) => {
  const { deps, privacy, store, erasure } = opts;
  const ownChatbot = async (accountId: string, id: string) => {
    if (!await deps.repos.chatbots.findForAccount(accountId, id)) throw Errors.notFound();
  };

  app.delete('/chatbots/:id/visitors/:token', {
    config: { auth: 'credential' },
    schema: {
      tags: ['dashboard'],
      summary: "Erase one visitor: every row naming the token or its conversations, in both stores",
      description: 'PostgreSQL rows (conversations, messages, analyses) are gone when this answers; ClickHouse rows within the bound of README.md "Personal data". Poll the receipt.',
      security: ANY_CREDENTIAL_SECURITY,
      params: VisitorParams,
      response: { 202: Success(Type.Object({ erasure: Erasure })), ...errorResponses(401, 403, 404, 500) },
    },
  }, async (req, reply) => {
    const principal = principalOf(req);
    await ownChatbot(principal.accountId, req.params.id);
    const row = await erasure.request(principal, req.params.id, req.params.token);
    reply.code(202);
    return { success: true as const, data: { erasure: present(row) } };
  });

  app.get('/chatbots/:id/visitors/erasures/:receipt', {
    config: { auth: 'credential' },
    schema: {
      tags: ['dashboard'],
      summary: 'An erasure receipt: pending or complete, and the rows removed',
      security: ANY_CREDENTIAL_SECURITY,
      params: ReceiptParams,
      response: { 200: Success(Type.Object({ erasure: Erasure })), ...errorResponses(401, 404, 500) },
    },
  }, async (req) => {
    const row = await privacy.findForChatbot(principalOf(req).accountId, req.params.id, req.params.receipt);
    if (!row) throw Errors.notFound();
    return { success: true as const, data: { erasure: present(row) } };
  });

  app.get('/chatbots/:id/visitors/:token/export', {
    config: { auth: 'credential' },
    schema: {
      tags: ['dashboard'],
      summary: "Everything stored about one visitor, as one JSON document (needs the manage scope)",
      security: ANY_CREDENTIAL_SECURITY,
      params: VisitorParams,
      response: { 200: ExportDocument, ...errorResponses(401, 403, 404, 500) },
    },
  }, async (req) => {
    const principal = principalOf(req);
    // Personal data: a read-only key reads statistics, not a person's record.
    if (principal.scope !== 'manage') throw Errors.readOnlyKey();
    const { id, token } = req.params;
    await ownChatbot(principal.accountId, id);
    const [events, rejectedEvents, orders, conversations] = await Promise.all([
      store.events(id, token), store.rejected(id, token), store.orders(id, token), privacy.conversationsOf(id, token),
    ]);
    return {
      chatbotId: id, token, exportedAt: deps.clock().toISOString(), events, rejectedEvents, orders,
      conversations: conversations.map((c) => ({
        ...c, startedAt: c.startedAt.toISOString(), updatedAt: c.updatedAt.toISOString(),
        messages: c.messages.map((m) => ({ ...m, createdAt: m.createdAt.toISOString() })),
        analysis: c.analysis && { ...c.analysis, createdAt: c.analysis.createdAt.toISOString() },
      })),
    };
  });
};
