import { createHmac, timingSafeEqual } from 'node:crypto';
import { DEFAULT_CURRENCY } from './currency.js';
import type { StoredEvent } from './stored-event.js';

/**
 * Why the ingest set a purchase aside instead of letting it count (services/ingest/README.md,
 * "Purchases that do not count"). A closed list: it is the `reason` column of
 * `events_rejected` for these rows and a metric label.
 */
export const SET_ASIDE_REASONS = ['implausible_value', 'implausible_quantity', 'unverified_signature', 'missing_signature', 'negative_amount'] as const;
export type SetAsideReason = (typeof SET_ASIDE_REASONS)[number];

/** The EUR cap of a chatbot that has not set its own (`chatbots.max_purchase_eur`'s default). */
export const DEFAULT_MAX_PURCHASE_EUR = 100_000;
/** No shop sells more of one product in one order; a line above this is set aside. */
export const PLAUSIBLE_QUANTITY_MAX = 10_000;

/**
 * A set-aside purchase travels on the bus as its StoredEvent JSON with one extra key,
 * `set_aside`, after the others. Not a StoredEvent property on purpose: the properties are the
 * columns of `events`, and such a purchase never becomes a row there. The extra key also makes
 * the message non-canonical, so the consumer's fast path declines it and its general path
 * writes it to `events_rejected`.
 */
export function encodeSetAsideEvent(event: StoredEvent, reason: SetAsideReason): { key: string; value: Buffer } {
  return { key: event.token, value: Buffer.from(JSON.stringify({ ...event, set_aside: reason })) };
}

/** `set_aside` of a decoded message: undefined when absent, null when present but not a known reason. */
export function setAsideReasonOf(value: object): SetAsideReason | null | undefined {
  const reason = (value as { set_aside?: unknown }).set_aside;
  if (reason === undefined) return undefined;
  return (SET_ASIDE_REASONS as readonly unknown[]).includes(reason) ? reason as SetAsideReason : null;
}

export interface PurchasePolicy {
  maxPurchaseEur: number;
  requireSignedPurchases: boolean;
  /** The chatbot's purchase signing secret; null when none was generated. */
  signingSecret: string | null;
}

type SignedFields = Pick<StoredEvent, 'chatbot_id' | 'order_num' | 'total_value' | 'currency' | 'items'>;

/**
 * The text a shop's backend signs, version 1 (services/ingest/README.md, "Verified purchases"):
 * chatbot id, order number, Σ value × quantity over the items with exactly two decimals, and the
 * currency (data.currency upper-cased, EUR when absent), joined by '\n'. It binds the total only,
 * so it counts only where the items cannot say anything else with the same total: all in the
 * order's currency (negative amounts are set aside before, whatever the signature).
 */
export function purchaseSigningText(event: Pick<StoredEvent, 'chatbot_id' | 'order_num' | 'total_value' | 'currency'>): string {
  return `${event.chatbot_id}\n${event.order_num}\n${event.total_value.toFixed(2)}\n${event.currency || DEFAULT_CURRENCY}`;
}

/** The prefix of a version-2 signature: `v2=` and 64 hex digits. */
export const SIGNATURE_V2_PREFIX = 'v2=';

/**
 * The text a shop's backend signs, version 2: every item, so a signed purchase cannot be sent
 * again with other items, quantities or currencies. Lines joined by '\n': `v2`, the chatbot id,
 * the order number, the order's currency, then one line per item in the order sent,
 * `item_id|quantity|value|currency` (the quantity a whole number, the value with exactly two
 * decimals, the item's currency upper-cased, the order's when absent). Undefined when an item id holds `|` or a line break,
 * which would make two item lists read alike: such a purchase cannot be signed this way.
 */
export function purchaseSigningTextV2(event: Omit<SignedFields, 'total_value'>): string | undefined {
  const currency = event.currency || DEFAULT_CURRENCY;
  const lines = ['v2', event.chatbot_id, event.order_num, currency];
  for (const item of event.items) {
    if (/[|\r\n]/.test(item.item_id)) return undefined;
    lines.push(`${item.item_id}|${item.quantity}|${item.value.toFixed(2)}|${item.currency || currency}`);
  }
  return lines.join('\n');
}

/** HMAC-SHA256 of the signing text, lower-case hex: what `data.signature` must hold (after `v2=` for version 2). */
export function signPurchase(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}

const HEX_64 = /^[0-9a-fA-F]{64}$/;

/**
 * Constant-time check of a signature against the purchase: `v2=<hex>` against the version-2
 * text, bare hex against version 1 (accepted while shops move over, for items all in the
 * order's currency only).
 */
export function purchaseSignatureValid(secret: string, event: SignedFields, signature: string): boolean {
  const v2 = signature.startsWith(SIGNATURE_V2_PREFIX);
  const hex = v2 ? signature.slice(SIGNATURE_V2_PREFIX.length) : signature;
  if (!HEX_64.test(hex)) return false;
  const currency = event.currency || DEFAULT_CURRENCY;
  const text = v2 ? purchaseSigningTextV2(event)
    : event.items.every((item) => (item.currency || currency) === currency) ? purchaseSigningText(event) : undefined;
  if (text === undefined) return false;
  return timingSafeEqual(Buffer.from(signPurchase(secret, text), 'hex'), Buffer.from(hex, 'hex'));
}

/**
 * Whether a purchase counts, and if not why. A negative value never does, on any chatbot (a
 * refund is not a purchase: it would erase real revenue; a quantity below 1 is refused by the
 * tracking schema already). Then the signature (with
 * signing required, an unsigned purchase is unverified whatever it claims), then plausibility:
 * a quantity no shop sells, or an EUR value over the chatbot's cap. A value in an unknown
 * currency has no EUR value and no statistic counts it. Other events always count.
 */
export function setAsideReason(event: StoredEvent, signature: unknown, policy: PurchasePolicy): SetAsideReason | undefined {
  if (event.event !== 'purchase') return undefined;
  if (event.items.some((item) => item.value < 0)) return 'negative_amount';
  if (policy.requireSignedPurchases) {
    if (typeof signature !== 'string' || signature === '') return 'missing_signature';
    if (policy.signingSecret === null || !purchaseSignatureValid(policy.signingSecret, event, signature)) return 'unverified_signature';
  }
  if (event.items.some((item) => item.quantity > PLAUSIBLE_QUANTITY_MAX)) return 'implausible_quantity';
  if (event.total_value_base !== null && Math.abs(event.total_value_base) > policy.maxPurchaseEur) return 'implausible_value';
  return undefined;
}
