import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { EventBus } from '@chatlytics/bus';
import { checkOrderBody, isOrderProblem, OrderBodySchema, toStoredOrder, type OrderSource, type StoredOrder } from '@chatlytics/events';
import { createPublisher, type EventPublisher } from '../publisher.js';
import { authenticateOrders } from './auth.js';
import { noOrdersCredentials, type OrdersCredentialSource } from './credentials.js';
import { OrdersError, ordersErrorBody, ordersErrorOf, ordersErrorResponses, ORDERS_RETRY_AFTER_SECONDS } from './errors.js';
import { publishOrder } from './publish.js';
import { parseBody, rawBody } from './body.js';
import { registerShopReceivers } from './receivers.js';

export interface OrdersAppOptions {
  bus: EventBus;
  /** Each chatbot's orders key, signing secret and shop secrets (src/orders/credentials.ts). */
  credentials?: OrdersCredentialSource;
  /** A publisher owned by the caller; else one is created here and drained on close. */
  publisher?: EventPublisher;
  clock?: () => Date;
}

/** An order body is a few KB; 1 MiB holds the 500 items and 100 refunds the schema allows, and any shop webhook. */
export const ORDERS_BODY_LIMIT = 1024 * 1024;

export const orderAcceptedSchema = Type.Object({
  success: Type.Literal(true),
  order_id: Type.String(),
  /** The state's version (decimal UInt64): the largest one of an order is its state. */
  version: Type.String(),
});

/**
 * The orders a shop's backend reports, server to server (services/ingest/README.md, "Orders"):
 * `POST /api/orders` and the Shopify and WooCommerce receivers. Its own scope, apart from the
 * public tracking routes: the body is read as raw bytes (a signature is over the exact bytes,
 * checked before anything parses them), no CORS, no per-IP budget, no origin rule, and its own
 * error codes (ORDERS_*).
 */
export const ordersApp: FastifyPluginAsync<OrdersAppOptions> = async (app: FastifyInstance, opts) => {
  const credentials = opts.credentials ?? noOrdersCredentials;
  const clock = opts.clock ?? (() => new Date());
  const publisher = opts.publisher ?? createPublisher({ bus: opts.bus });
  if (!opts.publisher) app.addHook('onClose', async () => publisher.drain());

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ORDERS_BODY_LIMIT }, (_req, body, done) => done(null, body));
  // The body is bytes until authenticated; the schemas document, the handlers validate.
  app.setValidatorCompiler(() => () => true);
  app.setErrorHandler((err, request: FastifyRequest, reply: FastifyReply) => {
    const e = ordersErrorOf(err);
    if (e.statusCode >= 500 && e.code !== 'ORDERS_004') request.log.error({ err }, 'orders request failed');
    if (e.statusCode === 503) reply.header('retry-after', String(ORDERS_RETRY_AFTER_SECONDS));
    return reply.code(e.statusCode).send(ordersErrorBody(e));
  });

  /** Stores one reported state: validated, normalised, durable on the bus. */
  async function accept(chatbotId: string, body: unknown, source: OrderSource, log: FastifyRequest['log']): Promise<StoredOrder> {
    const checked = checkOrderBody(body);
    if (!checked.ok) throw new OrdersError('ORDERS_003', { errors: checked.errors });
    const stored = toStoredOrder(chatbotId, checked.value, source, clock());
    if (isOrderProblem(stored)) throw new OrdersError('ORDERS_003', { errors: { [stored.field.replace(/\//g, '.')]: [stored.message] } });
    await publishOrder(publisher, stored, log);
    return stored;
  }

  app.post('/api/orders', {
    schema: {
      tags: ['orders'],
      summary: 'Report an order from the shop\'s backend',
      description: 'Authenticated per chatbot: `Authorization: Bearer <orders key>`, or `X-Chatlytics-Chatbot-Id` + `X-Chatlytics-Signature: sha256=<hex HMAC-SHA256 of the raw body with the orders signing secret>`. 200 once the state is durable on the bus; the latest state per order wins.',
      body: OrderBodySchema,
      response: { 200: orderAcceptedSchema, ...ordersErrorResponses },
    },
  }, async (request) => {
    const raw = rawBody(request);
    const chatbotId = await authenticateOrders(request.headers, raw, credentials);
    const stored = await accept(chatbotId, parseBody(raw), 'api', request.log);
    return { success: true as const, order_id: stored.order_id, version: stored.version };
  });

  registerShopReceivers(app, { credentials, publisher, clock, accept });
};
