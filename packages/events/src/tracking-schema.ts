import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';

/**
 * Limits of the tracking endpoint (see the tracking endpoint rules in services/ingest/README.md), in one place so that
 * the schemas, the documentation and the tests' limit matrix all read the same numbers.
 */
export const TRACKING_LIMITS = Object.freeze({
  eventMaxLength: 50,
  tokenMinLength: 8,
  tokenMaxLength: 128,
  tokenPattern: '^[A-Za-z0-9_-]+$',
  /** JSON-encoded `data`, in UTF-8 bytes. */
  dataMaxBytes: 50_000,
  itemsMax: 50,
  itemIdMaxLength: 128,
  currencyMaxLength: 3,
  orderNumMaxLength: 512,
  chatbotIdMaxLength: 512,
  urlMaxLength: 2048,
  userAgentMaxLength: 1024,
  /**
   * Not in the original limits: each distinct version is a row of popup-metrics and a line of
   * the analytics page, so an unbounded version let one anonymous batch grow a shop's page by a
   * megabyte. 100 characters hold any version name a person types.
   */
  popupVersionMaxLength: 100,
  quantityMin: 1,
  /**
   * Not in the documented limits: our own guards so that Σ value × quantity over 50 items stays a finite,
   * exactly representable-enough Float64 (50 × 1e12 × 1e6 = 5e19 < 1.8e308). No real shop
   * sells one line worth a trillion or a million units of one product in one order.
   */
  valueMaxAbs: 1e12,
  quantityMax: 1_000_000,
});

const L = TRACKING_LIMITS;

/**
 * `errorMessage` is our own annotation: the human message a 422 shows for a union (whose raw
 * errors list every failed branch). It is ignored by the validator.
 */
const nullable = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * Numeric strings are accepted where the tracking endpoint's documentation says "numeric" (widgets often send prices read
 * from the page as text, e.g. "19.99"): plain decimal notation only, no exponent, no spaces,
 * at most 12 integer digits so the value stays within valueMaxAbs.
 */
const NumericValue = Type.Union([
  Type.Number({ minimum: -L.valueMaxAbs, maximum: L.valueMaxAbs }),
  Type.String({ pattern: '^-?[0-9]{1,12}(\\.[0-9]{1,12})?$' }),
  Type.Null(),
], { errorMessage: `must be a number between -${L.valueMaxAbs} and ${L.valueMaxAbs}` });

const Quantity = Type.Union([
  Type.Integer({ minimum: L.quantityMin, maximum: L.quantityMax }),
  Type.String({ pattern: '^(1000000|[1-9][0-9]{0,5})$' }),
  Type.Null(),
], { errorMessage: `must be an integer between ${L.quantityMin} and ${L.quantityMax}` });

/** Product ids are often numeric in shop systems; a number is accepted and stored as its decimal text. */
const ItemId = Type.Union([
  Type.String({ maxLength: L.itemIdMaxLength }),
  Type.Number(),
  Type.Null(),
], { errorMessage: `must be a string of at most ${L.itemIdMaxLength} characters` });

const Currency = Type.Union([
  Type.String({ maxLength: L.currencyMaxLength }),
  Type.Null(),
], { errorMessage: `must be a currency code of at most ${L.currencyMaxLength} characters` });

export const TrackingItem = Type.Object({
  item_id: Type.Optional(ItemId),
  /** Alias of item_id; item_id wins when both are present. */
  id: Type.Optional(ItemId),
  value: Type.Optional(NumericValue),
  /** Alias of value; value wins when both are present. */
  price: Type.Optional(NumericValue),
  /** Defaults to 1. */
  quantity: Type.Optional(Quantity),
  /** Upper-cased; defaults to data.currency, else EUR. */
  currency: Type.Optional(Currency),
}, { additionalProperties: true });

const boundedString = (maxLength: number) =>
  Type.Union([Type.String({ maxLength }), Type.Null()], { errorMessage: `must be a string of at most ${maxLength} characters` });

export const TrackingData = Type.Object({
  chatbot_id: Type.Optional(boundedString(L.chatbotIdMaxLength)),
  items: Type.Optional(nullable(Type.Array(TrackingItem, { maxItems: L.itemsMax }))),
  /** Order numbers are often numeric; a number is accepted and stored as its decimal text. */
  orderNum: Type.Optional(Type.Union([
    Type.String({ maxLength: L.orderNumMaxLength }), Type.Number(), Type.Null(),
  ], { errorMessage: `must be a string of at most ${L.orderNumMaxLength} characters` })),
  popup_version: Type.Optional(Type.Union([
    Type.String({ maxLength: L.popupVersionMaxLength }), Type.Number(), Type.Null(),
  ], { errorMessage: `must be a string of at most ${L.popupVersionMaxLength} characters` })),
  /** '' is treated like absent: some widgets send empty strings for unset fields. */
  open_way: Type.Optional(Type.Union([
    Type.Literal('popup'), Type.Literal('chat_button'), Type.Literal(''), Type.Null(),
  ], { errorMessage: 'must be popup or chat_button' })),
  currency: Type.Optional(Currency),
  /**
   * click_through: the product clicked in the chat (its id as the shop's orders name it). An
   * order with this product is then *direct* (services/dashboard/docs/statistics.md, "Revenue source").
   */
  item_id: Type.Optional(ItemId),
  url: Type.Optional(boundedString(L.urlMaxLength)),
  /** document.referrer of the page (the tracker sends it with `visitor`): the traffic source when the URL has no utm_source. */
  referrer: Type.Optional(boundedString(L.urlMaxLength)),
  user_agent: Type.Optional(boundedString(L.userAgentMaxLength)),
  /**
   * The client's own id, so that a retried beacon is deduplicated. Any value is accepted; only
   * a valid UUID is used as the event id, anything else is kept in the raw payload and ignored.
   */
  event_id: Type.Optional(Type.Unknown()),
}, { additionalProperties: true });

/**
 * The tracking body after the legacy names (e, u, d) were mapped. `data` is checked for being
 * an object and for its size before this schema runs (those are 400s, not 422s).
 * `ab_test` accepts what Laravel's `boolean` rule accepts, plus "true"/"false" text for the
 * GET form where every value is a string.
 */
export const TrackingBody = Type.Object({
  event: Type.String({ minLength: 1, maxLength: L.eventMaxLength }),
  token: Type.String({ minLength: L.tokenMinLength, maxLength: L.tokenMaxLength, pattern: L.tokenPattern }),
  data: Type.Optional(TrackingData),
  ab_test: Type.Optional(Type.Union([
    Type.Boolean(), Type.Literal(0), Type.Literal(1),
    Type.Literal('0'), Type.Literal('1'), Type.Literal('true'), Type.Literal('false'), Type.Null(),
  ], { errorMessage: 'must be true or false' })),
}, { additionalProperties: true });

export type TrackingItem = Static<typeof TrackingItem>;
export type TrackingData = Static<typeof TrackingData>;
export type TrackingBody = Static<typeof TrackingBody>;

/** Compiled once at module load: validation is on the hot path of every tracking request. */
export const trackingBodyValidator = Compile(TrackingBody);
