import Fastify, { type FastifyInstance } from 'fastify';
import { mintOrdersKey, mintOrdersSigningSecret, orderOfMessage, ordersKeyHash, type StoredOrder } from '@chatlytics/events';
import { ordersApp } from '../src/orders/app.js';
import { createCachedCredentialSource, type OrdersCredentials } from '../src/orders/credentials.js';
import { FakeBus } from './helper.js';

export const SHOP_A = '0b5f5ad4-3d6c-4c59-9a43-55d1c7a3c0a1';
export const SHOP_B = '0b5f5ad4-3d6c-4c59-9a43-55d1c7a3c0b2';
export const BARE = '0b5f5ad4-3d6c-4c59-9a43-55d1c7a3c0c3';

/** Two shops with every credential, one chatbot with none. */
export function shops() {
  const keys: Record<string, string> = { [SHOP_A]: mintOrdersKey(SHOP_A), [SHOP_B]: mintOrdersKey(SHOP_B) };
  const secrets: Record<string, string> = { [SHOP_A]: mintOrdersSigningSecret(), [SHOP_B]: mintOrdersSigningSecret() };
  const shopify: Record<string, string> = { [SHOP_A]: 'shpss_secret-of-shop-a', [SHOP_B]: 'shpss_secret-of-shop-b' };
  const woo: Record<string, string> = { [SHOP_A]: 'woo-secret-of-shop-a', [SHOP_B]: 'woo-secret-of-shop-b' };
  const rows = new Map<string, OrdersCredentials>([
    ...[SHOP_A, SHOP_B].map((id) => [id, { ordersKeyHash: ordersKeyHash(keys[id]), ordersSigningSecret: secrets[id], shopifyWebhookSecret: shopify[id], woocommerceWebhookSecret: woo[id] }] as const),
    [BARE, { ordersKeyHash: null, ordersSigningSecret: null, shopifyWebhookSecret: null, woocommerceWebhookSecret: null }],
  ]);
  return { keys, secrets, shopify, woo, rows };
}

export interface OrdersBuilt { app: FastifyInstance; bus: FakeBus; orders(): StoredOrder[]; failReads(on: boolean): void }

export async function buildOrders(rows: Map<string, OrdersCredentials>): Promise<OrdersBuilt> {
  const bus = new FakeBus();
  let failing = false;
  const credentials = createCachedCredentialSource({
    load: async (id) => { if (failing) throw new Error('database away'); return rows.get(id) ?? null; },
    ttlMs: 0,
  });
  const app = Fastify({ logger: false });
  await app.register(ordersApp, { bus, credentials, clock: () => new Date('2026-03-05T00:00:00Z') });
  await app.ready();
  return {
    app, bus,
    // The order states published (refunds reported alone are left out).
    orders: () => bus.calls.flat().flatMap((m) => {
      const value = JSON.parse(m.value.toString('utf8')) as Record<string, unknown>;
      if (value.kind === 'order_refund') return [];
      const o = orderOfMessage(value);
      if (!o) throw new Error('the bus received something else than a valid order');
      return [o];
    }),
    failReads: (on) => { failing = on; },
  };
}
