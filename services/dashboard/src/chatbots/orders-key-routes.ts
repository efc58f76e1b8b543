import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/auth-plugin.js';
import type { DashboardDeps } from '../deps.js';
import { Errors } from '../http/errors.js';
import { ANY_CREDENTIAL_SECURITY, IdParams, Success, errorResponses } from '../http/schemas.js';

export const OrdersKey = Type.Object({
  ordersKey: Type.String({ description: 'The orders key (`Authorization: Bearer <key>` on POST /api/orders). Shown this once: only its SHA-256 is stored' }),
  ordersSigningSecret: Type.String({ description: 'The HMAC-SHA256 key of `X-Chatlytics-Signature` on POST /api/orders, the other way to authenticate. Shown this once' }),
});

/** The orders key of a chatbot (services/ingest/README.md, "Orders"), under /api/dashboard. */
export const ordersKeyRoutes: FastifyPluginAsyncTypebox<{ deps: DashboardDeps }> = async (app, { deps }) => {
  app.post('/chatbots/:id/orders-key', {
    config: { auth: 'credential' },
    schema: {
      tags: ['dashboard'],
      summary: 'Generate a new orders key and signing secret for the shop\'s backend (the old ones stop working)',
      description: 'Both are in this answer only; they are never shown again. The old key and secret stop authenticating within 15 s.',
      security: ANY_CREDENTIAL_SECURITY,
      params: IdParams,
      response: { 201: Success(OrdersKey), ...errorResponses(401, 403, 404, 500) },
    },
  }, async (req, reply) => {
    const minted = await deps.repos.ordersSettings.rotateOrdersKey(principalOf(req).accountId, req.params.id);
    if (!minted) throw Errors.notFound();
    reply.code(201);
    return { success: true as const, data: minted };
  });
};
