import type { IncomingHttpHeaders } from 'node:http';
import { chatbotOfOrdersKey, hmacOf, ordersKeyHash, sameText } from '@chatlytics/events';
import { UUID, type OrdersCredentials, type OrdersCredentialSource } from './credentials.js';
import { OrdersError } from './errors.js';

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** The credentials of a chatbot, or a 503 when they cannot be read (an orders route fails closed). */
export async function credentialsOf(source: OrdersCredentialSource, chatbotId: string): Promise<OrdersCredentials | null> {
  try {
    return await source.credentialsOf(chatbotId);
  } catch (err) {
    throw new OrdersError('ORDERS_004', { cause: err });
  }
}

const unauthenticated = () => new OrdersError('ORDERS_001');

/**
 * Which chatbot a POST /api/orders request speaks for, or 401. Two ways, checked before the
 * body is parsed:
 * - `Authorization: Bearer <orders key>`: the key names its chatbot, whose stored SHA-256 must
 *   equal the key's (constant time); an `X-Chatlytics-Chatbot-Id` beside it must name the same one;
 * - `X-Chatlytics-Chatbot-Id` + `X-Chatlytics-Signature: sha256=<hex>`: HMAC-SHA256 of the raw
 *   body with that chatbot's orders signing secret (constant time).
 */
export async function authenticateOrders(headers: IncomingHttpHeaders, raw: Buffer, source: OrdersCredentialSource): Promise<string> {
  const named = header(headers, 'x-chatlytics-chatbot-id')?.toLowerCase();
  const auth = header(headers, 'authorization');
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    const chatbotId = m ? chatbotOfOrdersKey(m[1]) : undefined;
    if (!m || !chatbotId || (named !== undefined && named !== chatbotId)) throw unauthenticated();
    const creds = await credentialsOf(source, chatbotId);
    if (!creds?.ordersKeyHash || !sameText(ordersKeyHash(m[1]), creds.ordersKeyHash)) throw unauthenticated();
    return chatbotId;
  }
  const signature = header(headers, 'x-chatlytics-signature');
  if (signature === undefined || named === undefined || !UUID.test(named)) throw unauthenticated();
  const creds = await credentialsOf(source, named);
  const hex = signature.startsWith('sha256=') ? signature.slice(7) : signature;
  if (!creds?.ordersSigningSecret || !sameText(hex.toLowerCase(), hmacOf(creds.ordersSigningSecret, raw, 'hex'))) throw unauthenticated();
  return named;
}

/**
 * A shop webhook's signature: base64 HMAC-SHA256 of the raw body with the chatbot's secret for
 * that shop (Shopify's X-Shopify-Hmac-Sha256, WooCommerce's X-WC-Webhook-Signature), compared in
 * constant time before anything reads the body. An unknown chatbot, one without that secret, a
 * missing or a wrong signature: 401, nothing said about which.
 */
export async function authenticateWebhook(
  chatbotId: string, signature: string | undefined, raw: Buffer, source: OrdersCredentialSource,
  secretOf: (c: OrdersCredentials) => string | null,
): Promise<void> {
  if (!UUID.test(chatbotId) || !signature) throw unauthenticated();
  const creds = await credentialsOf(source, chatbotId);
  const secret = creds ? secretOf(creds) : null;
  if (!secret || !sameText(signature.trim(), hmacOf(secret, raw, 'base64'))) throw unauthenticated();
}

export { header };
