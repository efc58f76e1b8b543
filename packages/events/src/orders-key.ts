import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The orders key of a chatbot (services/ingest/README.md, "Orders"): `cok_`, the chatbot id's
 * 32 hex digits, `_`, 32 random bytes base64url. The id in the key tells the ingest which
 * chatbot's stored hash to compare with, so a key is checked with one read by primary key.
 * Only its SHA-256 is stored.
 */
export const ORDERS_KEY_PREFIX = 'cok_';
const KEY = /^cok_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;

export function mintOrdersKey(chatbotId: string): string {
  return `${ORDERS_KEY_PREFIX}${chatbotId.replace(/-/g, '').toLowerCase()}_${randomBytes(32).toString('base64url')}`;
}

/** The secret of X-Chatlytics-Signature: `cos_` and 32 random bytes base64url. */
export const mintOrdersSigningSecret = () => `cos_${randomBytes(32).toString('base64url')}`;

/** What `chatbots.orders_key_hash` holds: SHA-256 of the key, hex. */
export const ordersKeyHash = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/** The chatbot id (lower case, with dashes) a key names, or undefined when it is not an orders key. */
export function chatbotOfOrdersKey(key: string): string | undefined {
  const m = KEY.exec(key);
  if (!m) return undefined;
  const h = m[1];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Constant-time equality of two texts (false at once when their lengths differ: lengths are not secret). */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** HMAC-SHA256 of raw bytes with a secret, in the encoding a webhook header carries it. */
export const hmacOf = (secret: string, body: Buffer, encoding: 'hex' | 'base64') => createHmac('sha256', secret).update(body).digest(encoding);
