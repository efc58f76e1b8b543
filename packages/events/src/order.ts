import { createHash } from 'node:crypto';
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { eurRate, normalizeCurrency } from './currency.js';
import { collectErrors, toFieldErrors, type FieldErrors } from './field-errors.js';

/**
 * An order as the shop's backend reports it (services/ingest/README.md, "Orders"): the body of
 * `POST /api/orders`, of each line of `cli import-orders`, and what the Shopify and WooCommerce
 * receivers map their webhooks to. Each report is the order's whole state now; the latest
 * state per order wins (orderVersion).
 */
export const ORDER_LIMITS = Object.freeze({
  orderIdMaxLength: 256,
  itemsMax: 500,
  refundsMax: 100,
  valueMaxAbs: 1e12,
  quantityMax: 1_000_000,
});
const L = ORDER_LIMITS;

export const ORDER_STATUSES = ['paid', 'cancelled', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

const isoTime = () => Type.String({ minLength: 10, maxLength: 40, description: 'ISO 8601 time, e.g. 2026-03-01T10:00:00Z' });

export const OrderItemSchema = Type.Object({
  item_id: Type.String({ minLength: 1, maxLength: 128 }),
  quantity: Type.Integer({ minimum: 1, maximum: L.quantityMax }),
  /** Unit price in the order's currency. */
  value: Type.Number({ minimum: -L.valueMaxAbs, maximum: L.valueMaxAbs }),
}, { additionalProperties: false });

export const OrderRefundSchema = Type.Object({
  refund_id: Type.String({ minLength: 1, maxLength: 256 }),
  at: isoTime(),
  amount: Type.Number({ minimum: 0, maximum: L.valueMaxAbs }),
}, { additionalProperties: false });

export const OrderBodySchema = Type.Object({
  order_id: Type.String({ minLength: 1, maxLength: L.orderIdMaxLength }),
  /** The visitor's tracking token, when the shop carried it to the order; null or absent: unknown. */
  token: Type.Optional(Type.Union([Type.String({ minLength: 8, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }), Type.Null()])),
  placed_at: isoTime(),
  currency: Type.String({ minLength: 3, maxLength: 3, pattern: '^[A-Za-z]{3}$' }),
  items: Type.Array(OrderItemSchema, { maxItems: L.itemsMax }),
  status: Type.Union([Type.Literal('paid'), Type.Literal('cancelled'), Type.Literal('refunded')]),
  refunds: Type.Optional(Type.Array(OrderRefundSchema, { maxItems: L.refundsMax })),
}, { additionalProperties: false });
export type OrderBody = Static<typeof OrderBodySchema>;

/** Where an order report came from: the `source` column of `orders`. */
export const ORDER_SOURCES = ['api', 'shopify', 'woocommerce', 'import'] as const;
export type OrderSource = (typeof ORDER_SOURCES)[number];

const CH_TIME = '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3}$';

/**
 * One order state as it travels on the bus and becomes a row of ClickHouse `orders`
 * (clickhouse/README.md, "orders"): flat arrays instead of objects, one property per column.
 */
export const StoredOrderSchema = Type.Object({
  chatbot_id: Type.String({ minLength: 1, maxLength: 512 }),
  order_id: Type.String({ minLength: 1, maxLength: L.orderIdMaxLength }),
  token: Type.String({ maxLength: 128 }),
  placed_at: Type.String({ pattern: CH_TIME }),
  currency: Type.String({ minLength: 3, maxLength: 3 }),
  item_ids: Type.Array(Type.String({ maxLength: 128 }), { maxItems: L.itemsMax }),
  item_quantities: Type.Array(Type.Integer({ minimum: 1, maximum: L.quantityMax }), { maxItems: L.itemsMax }),
  item_values: Type.Array(Type.Number(), { maxItems: L.itemsMax }),
  status: Type.Union([Type.Literal('paid'), Type.Literal('cancelled'), Type.Literal('refunded')]),
  refund_ids: Type.Array(Type.String({ maxLength: 256 }), { maxItems: L.refundsMax }),
  refund_ats: Type.Array(Type.String({ pattern: CH_TIME }), { maxItems: L.refundsMax }),
  refund_amounts: Type.Array(Type.Number(), { maxItems: L.refundsMax }),
  gross_value: Type.Number(),
  refunded_value: Type.Number(),
  net_value: Type.Number(),
  net_value_base: Type.Union([Type.Number(), Type.Null()]),
  source: Type.Union([Type.Literal('api'), Type.Literal('shopify'), Type.Literal('woocommerce'), Type.Literal('import')]),
  received_at: Type.String({ pattern: CH_TIME }),
  /** UInt64 as decimal text (orderVersion). */
  version: Type.String({ pattern: '^[0-9]{1,20}$' }),
}, { additionalProperties: false });
export type StoredOrder = Static<typeof StoredOrderSchema>;

export const orderBodyValidator = Compile(OrderBodySchema);
export const storedOrderValidator = Compile(StoredOrderSchema);

/** A body checked against OrderBodySchema, or its field errors (`{"items.0.quantity": [...]}`). */
export function checkOrderBody(value: unknown): { ok: true; value: OrderBody } | { ok: false; errors: FieldErrors } {
  if (orderBodyValidator.Check(value)) return { ok: true, value };
  return { ok: false, errors: toFieldErrors(value, collectErrors(orderBodyValidator, value)) };
}

/** 'YYYY-MM-DD HH:MM:SS.mmm', UTC: ClickHouse's DateTime64(3) text form. */
const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 23);

/** An ISO time's milliseconds, or NaN. Only forms with a date and, when timed, a zone. */
export function parseOrderTime(text: string): number {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(text)) return NaN;
  const ms = Date.parse(text);
  return ms >= Date.UTC(2000, 0, 1) && ms < Date.UTC(2100, 0, 1) ? ms : NaN;
}

const STATUS_RANK: Record<OrderStatus, bigint> = { paid: 0n, refunded: 1n, cancelled: 2n };

/**
 * The version of an order state, from its own content only, so the same set of reports gives
 * the same winner whatever order they arrive in and however often each is resent. Orders move
 * forward (paid, refunds added, then refunded or cancelled), so the version compares in turn:
 * the status (paid < refunded < cancelled), the number of refunds, the latest time the report
 * carries (placed_at or a refund's time), then a digest of the content so two different
 * reports never tie. Bits: 2 status | 8 refunds (capped) | 41 ms | 12 digest = 63.
 */
export function orderVersion(order: Pick<StoredOrder, 'status' | 'refund_ids' | 'placed_at' | 'refund_ats'> & object): bigint {
  const times = [order.placed_at, ...order.refund_ats].map((t) => Date.parse(`${t.replace(' ', 'T')}Z`));
  const latest = BigInt(Math.min(Math.max(...times), 2 ** 41 - 1));
  const count = BigInt(Math.min(order.refund_ids.length, 255));
  const digest = BigInt(createHash('sha256').update(JSON.stringify(order)).digest().readUInt16BE(0) & 0xfff);
  return (STATUS_RANK[order.status] << 61n) | (count << 53n) | (latest << 12n) | digest;
}

/** A report that passed the schema but not a rule the schema cannot say: which field, why. */
export interface OrderProblem { field: string; message: string }

/**
 * The report as stored: times in ClickHouse form, values summed (gross = Σ value × quantity,
 * refunded = Σ refunds; net = 0 when cancelled or refunded, else gross − refunded, never
 * below 0), the net in EUR at the static rates (null for a currency without one), and its version.
 */
export function toStoredOrder(chatbotId: string, body: OrderBody, source: OrderSource, receivedAt: Date): StoredOrder | OrderProblem {
  const placed = parseOrderTime(body.placed_at);
  if (Number.isNaN(placed)) return { field: 'placed_at', message: 'must be an ISO 8601 time with a zone, in 2000–2099' };
  const refunds = body.refunds ?? [];
  const refundAts: string[] = [];
  for (const [i, r] of refunds.entries()) {
    const at = parseOrderTime(r.at);
    if (Number.isNaN(at)) return { field: `refunds/${i}/at`, message: 'must be an ISO 8601 time with a zone, in 2000–2099' };
    refundAts.push(chTime(at));
  }
  const currency = normalizeCurrency(body.currency);
  const gross = round2(body.items.reduce((sum, item) => sum + item.value * item.quantity, 0));
  const refunded = round2(refunds.reduce((sum, r) => sum + r.amount, 0));
  const net = body.status === 'paid' ? Math.max(0, round2(gross - refunded)) : 0;
  const rate = eurRate(currency);
  const stored: Omit<StoredOrder, 'version'> = {
    chatbot_id: chatbotId.toLowerCase(),
    order_id: body.order_id,
    token: body.token ?? '',
    placed_at: chTime(placed),
    currency,
    item_ids: body.items.map((i) => i.item_id),
    item_quantities: body.items.map((i) => i.quantity),
    item_values: body.items.map((i) => i.value),
    status: body.status,
    refund_ids: refunds.map((r) => r.refund_id),
    refund_ats: refundAts,
    refund_amounts: refunds.map((r) => r.amount),
    gross_value: gross,
    refunded_value: refunded,
    net_value: net,
    net_value_base: rate === undefined ? null : round2(net * rate),
    source,
    received_at: chTime(receivedAt.getTime()),
  };
  // received_at and source are left out of the version: a resend is the same state.
  const { received_at: _r, source: _s, ...content } = stored;
  return { ...stored, version: orderVersion(content).toString() };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Type guard: toStoredOrder's problem answer. */
export const isOrderProblem = (x: StoredOrder | StoredRefund | OrderProblem): x is OrderProblem => 'field' in x && 'message' in x && !('order_id' in x);

/**
 * The bus message of an order state: `{"kind":"order","order":{…}}` on the events stream,
 * keyed by chatbot and order so that every report of one order travels in one partition. The
 * `kind` key makes it non-canonical: the consumer's fast path declines it and its `order` step
 * writes it to `orders`.
 */
export function encodeOrderMessage(order: StoredOrder): { key: string; value: Buffer } {
  return { key: `order:${order.chatbot_id}:${order.order_id}`, value: Buffer.from(JSON.stringify({ kind: 'order', order })) };
}

/**
 * One refund of an order, a row of `order_refunds`: from an order state's `refunds`, or alone
 * (Shopify's refunds/create carries the refund, not the order). Refunds are kept apart so a
 * refund counts whichever report brought it: an order's net is its latest state's gross less
 * the distinct refunds known (clickhouse/README.md, "orders").
 */
export const StoredRefundSchema = Type.Object({
  chatbot_id: Type.String({ minLength: 1, maxLength: 512 }),
  order_id: Type.String({ minLength: 1, maxLength: L.orderIdMaxLength }),
  refund_id: Type.String({ minLength: 1, maxLength: 256 }),
  at: Type.String({ pattern: CH_TIME }),
  /** In the order's currency. */
  amount: Type.Number({ minimum: 0, maximum: L.valueMaxAbs }),
  source: Type.Union([Type.Literal('api'), Type.Literal('shopify'), Type.Literal('woocommerce'), Type.Literal('import')]),
  received_at: Type.String({ pattern: CH_TIME }),
}, { additionalProperties: false });
export type StoredRefund = Static<typeof StoredRefundSchema>;
export const storedRefundValidator = Compile(StoredRefundSchema);

/** The refunds an order state carries, as rows of `order_refunds`. */
export const refundsOfOrder = (o: StoredOrder): StoredRefund[] => o.refund_ids.map((refund_id, i) => ({
  chatbot_id: o.chatbot_id, order_id: o.order_id, refund_id, at: o.refund_ats[i], amount: o.refund_amounts[i], source: o.source, received_at: o.received_at,
}));

/** A refund reported alone, checked and stored like an order state's refunds; or the problem. */
export function toStoredRefund(chatbotId: string, r: { order_id: string; refund_id: string; at: string; amount: number }, source: OrderSource, receivedAt: Date): StoredRefund | OrderProblem {
  const at = parseOrderTime(r.at);
  if (Number.isNaN(at)) return { field: 'at', message: 'must be an ISO 8601 time with a zone, in 2000–2099' };
  const stored: StoredRefund = {
    chatbot_id: chatbotId.toLowerCase(), order_id: r.order_id, refund_id: r.refund_id, at: chTime(at),
    amount: r.amount, source, received_at: chTime(receivedAt.getTime()),
  };
  if (storedRefundValidator.Check(stored)) return stored;
  const first = storedRefundValidator.Errors(stored)[0];
  return { field: (first?.instancePath ?? '/').slice(1) || 'refund', message: first?.message ?? 'invalid refund' };
}

/** A refund reported alone: `{"kind":"order_refund","refund":{…}}`, keyed like its order's reports. */
export function encodeRefundMessage(refund: StoredRefund): { key: string; value: Buffer } {
  return { key: `order:${refund.chatbot_id}:${refund.order_id}`, value: Buffer.from(JSON.stringify({ kind: 'order_refund', refund })) };
}

/** The refund a decoded bus value carries: undefined when it is not a refund message, null when invalid. */
export function refundOfMessage(value: Record<string, unknown>): StoredRefund | null | undefined {
  if (value.kind !== 'order_refund') return undefined;
  return storedRefundValidator.Check(value.refund) ? value.refund : null;
}

/** The order a decoded bus value carries: undefined when it is not an order message, null when it is one but invalid. */
export function orderOfMessage(value: Record<string, unknown>): StoredOrder | null | undefined {
  if (value.kind !== 'order') return undefined;
  return storedOrderValidator.Check(value.order) ? value.order : null;
}
