import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { encodeRefundMessage, isOrderProblem, toStoredRefund, type OrderSource, type StoredOrder } from '@chatlytics/events';
import type { EventPublisher } from '../publisher.js';
import { authenticateWebhook, header } from './auth.js';
import type { OrdersCredentialSource } from './credentials.js';
import { OrdersError, ordersErrorResponses } from './errors.js';
import { rawBody, parseBody } from './body.js';
import { shopifyOrder, shopifyRefund, SHOPIFY_TOPICS, type ShopifyTopic } from './shopify-map.js';
import { woocommerceOrder, WOOCOMMERCE_TOPICS } from './woocommerce-map.js';

export interface ReceiverDeps {
  credentials: OrdersCredentialSource;
  publisher: Pick<EventPublisher, 'publish'>;
  clock: () => Date;
  accept(chatbotId: string, body: unknown, source: OrderSource, log: FastifyRequest['log']): Promise<StoredOrder>;
}

const Params = Type.Object({ chatbot_id: Type.String({ description: 'The chatbot the shop reports to (its UUID)' }) });
const Received = Type.Object({
  success: Type.Literal(true),
  /** Why nothing was stored although the request was authentic: a topic or a status not counted, or a repeated delivery. */
  ignored: Type.Optional(Type.String()),
});

/** Webhook ids already stored, per process: a shop retries a delivery it saw no 200 for. */
function createSeenIds(max = 100_000) {
  const seen = new Set<string>();
  return {
    has: (id: string) => seen.has(id),
    add(id: string) {
      seen.add(id);
      if (seen.size > max) seen.delete(seen.values().next().value as string);
    },
  };
}

/**
 * The shop receivers (services/ingest/README.md, "Shopify", "WooCommerce"): the signature over
 * the raw body is checked with the chatbot's secret for that shop, in constant time, before
 * the body is parsed; then the webhook is mapped to the order report of POST /api/orders (or,
 * for Shopify's refunds/create, a refund alone) and stored the same way.
 */
export function registerShopReceivers(app: FastifyInstance, deps: ReceiverDeps): void {
  const shopifySeen = createSeenIds();

  app.post<{ Params: { chatbot_id: string } }>('/api/integrations/shopify/:chatbot_id', {
    schema: {
      tags: ['orders'],
      summary: 'Shopify webhooks: orders/paid, orders/cancelled, refunds/create',
      description: 'Signed with X-Shopify-Hmac-Sha256 (base64 HMAC-SHA256 of the raw body with the chatbot\'s `shopifyWebhookSecret`). Deliveries are deduplicated by X-Shopify-Webhook-Id; other topics are acknowledged and ignored.',
      params: Params,
      response: { 200: Received, ...ordersErrorResponses },
    },
  }, async (request) => {
    const chatbotId = request.params.chatbot_id.toLowerCase();
    const raw = rawBody(request);
    await authenticateWebhook(chatbotId, header(request.headers, 'x-shopify-hmac-sha256'), raw, deps.credentials, (c) => c.shopifyWebhookSecret);
    const topic = header(request.headers, 'x-shopify-topic') as ShopifyTopic | undefined;
    if (!topic || !SHOPIFY_TOPICS.includes(topic)) return { success: true as const, ignored: 'topic' };
    const webhookId = header(request.headers, 'x-shopify-webhook-id');
    const seenKey = webhookId ? `${chatbotId}:${webhookId}` : undefined;
    if (seenKey && shopifySeen.has(seenKey)) return { success: true as const, ignored: 'duplicate' };
    const payload = asObject(parseBody(raw));
    if (topic === 'refunds/create') {
      const refund = toStoredRefund(chatbotId, shopifyRefund(payload), 'shopify', deps.clock());
      if (isOrderProblem(refund)) throw new OrdersError('ORDERS_003', { errors: { [refund.field]: [refund.message] } });
      try {
        await deps.publisher.publish(encodeRefundMessage(refund));
      } catch (err) {
        request.log.warn({ err, chatbotId }, 'refund not durable: answering 503');
        throw new OrdersError('ORDERS_004', { cause: err });
      }
    } else {
      await deps.accept(chatbotId, shopifyOrder(topic, payload), 'shopify', request.log);
    }
    if (seenKey) shopifySeen.add(seenKey);
    return { success: true as const };
  });

  app.post<{ Params: { chatbot_id: string } }>('/api/integrations/woocommerce/:chatbot_id', {
    schema: {
      tags: ['orders'],
      summary: 'WooCommerce webhooks: order.created, order.updated',
      description: 'Signed with X-WC-Webhook-Signature (base64 HMAC-SHA256 of the raw body with the chatbot\'s `woocommerceWebhookSecret`). An order not paid yet (pending, on-hold) is acknowledged and ignored.',
      params: Params,
      response: { 200: Received, ...ordersErrorResponses },
    },
  }, async (request) => {
    const chatbotId = request.params.chatbot_id.toLowerCase();
    const raw = rawBody(request);
    // WooCommerce checks a new webhook's URL with an unsigned `webhook_id=N` form post: it carries no order.
    if (!header(request.headers, 'x-wc-webhook-signature') && /^webhook_id=\d+$/.test(raw.toString('latin1'))) return { success: true as const, ignored: 'ping' };
    await authenticateWebhook(chatbotId, header(request.headers, 'x-wc-webhook-signature'), raw, deps.credentials, (c) => c.woocommerceWebhookSecret);
    const topic = header(request.headers, 'x-wc-webhook-topic');
    if (!topic || !(WOOCOMMERCE_TOPICS as readonly string[]).includes(topic)) return { success: true as const, ignored: 'topic' };
    const body = woocommerceOrder(asObject(parseBody(raw)));
    if (body === null) return { success: true as const, ignored: 'status' };
    await deps.accept(chatbotId, body, 'woocommerce', request.log);
    return { success: true as const };
  });
}

function asObject(v: unknown): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new OrdersError('ORDERS_003', { errors: { body: ['The webhook body is not a JSON object.'] } });
  return v as Record<string, unknown>;
}
