import type { OrderBody } from '@chatlytics/events';

/**
 * WooCommerce's order webhooks (order.created, order.updated) as order reports
 * (services/ingest/README.md, "WooCommerce"). The order (REST API v3): `id`, `status`,
 * `currency`, `date_created_gmt` / `date_paid_gmt` (UTC without a zone), `line_items`
 * (`product_id`, `quantity`, `price` a number, `total` a decimal text after discounts),
 * `meta_data` ([{key, value}], where the theme snippet puts `_chatlytics_token`) and `refunds`
 * ([{id, total}] with a negative total and no date).
 */
export const WOOCOMMERCE_TOPICS = ['order.created', 'order.updated'] as const;
export const WOOCOMMERCE_TOKEN_META = '_chatlytics_token';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Json : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const idText = (v: unknown): string => (typeof v === 'number' || (typeof v === 'string' && v !== '') ? String(v) : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
/** WooCommerce's `_gmt` times carry no zone: they are UTC. */
const gmt = (v: unknown): string => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(v) ? `${v}Z` : String(v ?? ''));

/** Statuses of an order not paid yet (pending, on-hold, checkout-draft…): nothing to report. */
const STATUS: Record<string, OrderBody['status']> = {
  processing: 'paid', completed: 'paid', refunded: 'refunded', cancelled: 'cancelled', failed: 'cancelled', trash: 'cancelled',
};

/** The order's state, or null when it is not paid yet (an order.created of a pending order). */
export function woocommerceOrder(order: Json): unknown {
  const status = STATUS[String(order.status)];
  if (!status) return null;
  const token = list(order.meta_data).map(obj).find((m) => m.key === WOOCOMMERCE_TOKEN_META)?.value;
  const at = gmt(order.date_modified_gmt ?? order.date_created_gmt);
  const body: Json = {
    order_id: idText(order.id),
    placed_at: gmt(order.date_paid_gmt ?? order.date_created_gmt),
    currency: String(order.currency ?? ''),
    items: list(order.line_items).map(obj).map((l) => {
      const quantity = l.quantity as number;
      // The line's total is after discounts; price is the unit price before them.
      const total = num(l.total);
      const value = Number.isFinite(total) && typeof quantity === 'number' && quantity > 0 ? Math.round((total / quantity) * 100) / 100 : num(l.price);
      return { item_id: idText(l.product_id) || idText(l.id), quantity, value };
    }),
    status,
    refunds: list(order.refunds).map(obj).map((r) => ({ refund_id: idText(r.id), at, amount: Math.abs(num(r.total)) })),
  };
  if (typeof token === 'string' && token !== '') body.token = token;
  return body;
}
