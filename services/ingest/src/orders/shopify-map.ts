import type { OrderBody, StoredRefund } from '@chatlytics/events';

/**
 * Shopify's order webhooks as order reports (services/ingest/README.md, "Shopify"). The Order
 * resource: `id`, `created_at`/`processed_at`, `currency` (the shop's, the currency of the
 * line prices), `line_items` (`product_id`, `variant_id`, `quantity`, `price` a decimal text),
 * `financial_status`, `cancelled_at`, `note_attributes` ([{name, value}], where the tracker's
 * cart option puts `chatlytics_token`) and `refunds` (each with `transactions` of kind refund).
 */
export const SHOPIFY_TOPICS = ['orders/paid', 'orders/cancelled', 'refunds/create'] as const;
export type ShopifyTopic = (typeof SHOPIFY_TOPICS)[number];
export const SHOPIFY_TOKEN_ATTRIBUTE = 'chatlytics_token';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Json : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const idText = (v: unknown): string => (typeof v === 'number' || (typeof v === 'string' && v !== '') ? String(v) : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);

/** A refund's amount: its successful refund transactions, else its refunded lines' subtotals. */
function refundAmount(refund: Json): number {
  const tx = list(refund.transactions).map(obj).filter((t) => t.kind === 'refund' && (t.status === undefined || t.status === 'success'));
  if (tx.length > 0) return tx.reduce((sum, t) => sum + num(t.amount), 0);
  return list(refund.refund_line_items).map(obj).reduce((sum, l) => sum + num(l.subtotal), 0);
}

const refundOf = (refund: Json) => ({
  refund_id: idText(refund.id),
  at: String(refund.processed_at ?? refund.created_at ?? ''),
  amount: Math.round(refundAmount(refund) * 100) / 100,
});

/** orders/paid and orders/cancelled: the order's whole state. Invalid fields are left for the order schema to name. */
export function shopifyOrder(topic: 'orders/paid' | 'orders/cancelled', order: Json): unknown {
  const token = list(order.note_attributes).map(obj).find((a) => a.name === SHOPIFY_TOKEN_ATTRIBUTE)?.value;
  const status = topic === 'orders/cancelled' || order.cancelled_at ? 'cancelled'
    : order.financial_status === 'refunded' ? 'refunded' : 'paid';
  const body: Partial<OrderBody> & Json = {
    order_id: idText(order.id),
    placed_at: String(order.processed_at ?? order.created_at ?? ''),
    currency: String(order.currency ?? ''),
    items: list(order.line_items).map(obj).map((l) => ({ item_id: idText(l.product_id) || idText(l.variant_id) || idText(l.id), quantity: l.quantity as number, value: num(l.price) })),
    status,
    refunds: list(order.refunds).map(obj).map(refundOf),
  };
  if (typeof token === 'string' && token !== '') body.token = token;
  return body;
}

/** refunds/create: the refund alone (its order is reported by the order topics). */
export function shopifyRefund(refund: Json): { order_id: string } & Omit<StoredRefund, 'chatbot_id' | 'order_id' | 'at' | 'source' | 'received_at'> & { at: string } {
  return { order_id: idText(refund.order_id), ...refundOf(refund) };
}
