import { eq } from 'drizzle-orm';
import { chatbots, type Database } from '@chatlytics/postgres';

/** What the orders routes check a request against: one chatbot's stored credentials (null: none set). */
export interface OrdersCredentials {
  ordersKeyHash: string | null;
  ordersSigningSecret: string | null;
  shopifyWebhookSecret: string | null;
  woocommerceWebhookSecret: string | null;
}

/**
 * Where the orders routes read a chatbot's credentials. Null for an unknown chatbot; rejects
 * when they cannot be read, and the request is then refused with a 503: unlike tracking,
 * which goes on with defaults, an orders route fails closed.
 */
export interface OrdersCredentialSource {
  credentialsOf(chatbotId: string): Promise<OrdersCredentials | null>;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The orders routes' read of `chatbots`: the credential columns of one chatbot, nothing else. */
export function createOrdersCredentialRepository({ db }: { db: Database }) {
  return {
    async find(chatbotId: string): Promise<OrdersCredentials | null> {
      if (!UUID.test(chatbotId)) return null;
      const [row] = await db.select({
        ordersKeyHash: chatbots.ordersKeyHash,
        ordersSigningSecret: chatbots.ordersSigningSecret,
        shopifyWebhookSecret: chatbots.shopifyWebhookSecret,
        woocommerceWebhookSecret: chatbots.woocommerceWebhookSecret,
      }).from(chatbots).where(eq(chatbots.id, chatbotId.toLowerCase())).limit(1);
      return row ?? null;
    },
  };
}

/** A new key or secret replaces the old one within this. */
export const CREDENTIALS_TTL_MS = 15_000;

/**
 * Credentials read at most once per TTL per chatbot (concurrent misses share one read), so a
 * shop sending thousands of orders a second costs the database one read each 15 s. Failed
 * reads are not remembered: the next request tries again.
 */
export function createCachedCredentialSource(opts: {
  load: (chatbotId: string) => Promise<OrdersCredentials | null>;
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}): OrdersCredentialSource {
  const ttl = opts.ttlMs ?? CREDENTIALS_TTL_MS;
  const max = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, { value: OrdersCredentials | null; expires: number }>();
  const loading = new Map<string, Promise<OrdersCredentials | null>>();
  return {
    credentialsOf(chatbotId) {
      const id = chatbotId.toLowerCase();
      const hit = entries.get(id);
      if (hit && hit.expires > now()) return Promise.resolve(hit.value);
      let pending = loading.get(id);
      if (!pending) {
        pending = opts.load(id).then((value) => {
          entries.delete(id);
          entries.set(id, { value, expires: now() + ttl });
          if (entries.size > max) entries.delete(entries.keys().next().value as string);
          return value;
        }).finally(() => loading.delete(id));
        loading.set(id, pending);
      }
      return pending;
    },
  };
}

/** The source of the entry points: PostgreSQL, cached. */
export const createOrdersCredentialSource = (deps: { db: Database }) =>
  createCachedCredentialSource({ load: createOrdersCredentialRepository(deps).find });

/** Without a database (tests, an ingest without DATABASE_URL): no chatbot has credentials, every request is refused. */
export const noOrdersCredentials: OrdersCredentialSource = { credentialsOf: async () => null };
