import Type, { type Static } from 'typebox';
import { SEGMENT_VALUE_MAX_LENGTH } from './segment.js';
import { TRACKING_LIMITS } from './tracking-schema.js';

/**
 * The normalised event as it travels on the bus (JSON) and lands in ClickHouse `events`
 * (JSONEachRow, one property per column). Ingest produces it; the consumer re-validates it
 * against this same schema before inserting. Column meanings: clickhouse/README.md.
 */
export const StoredItem = Type.Object({
  item_id: Type.String({ maxLength: 128 }),
  value: Type.Number(),
  // ClickHouse's UInt32 column would silently wrap a larger quantity (5e9 → 705032704).
  quantity: Type.Integer({ minimum: 1, maximum: 4_294_967_295 }),
  /** The item's own currency as sent (upper-cased), or the event's, or EUR. */
  currency: Type.String({ maxLength: 3 }),
});

const Segment = () => Type.String({ maxLength: SEGMENT_VALUE_MAX_LENGTH });

export const StoredEvent = Type.Object({
  event_id: Type.String({ format: 'uuid' }),
  event: Type.String({ minLength: 1, maxLength: 50 }),
  token: Type.String({ minLength: 8, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }),
  /** '' when the payload has no chatbot_id: stored, counted by no statistic. */
  chatbot_id: Type.String({ maxLength: 512 }),
  /** Server time at ingest, UTC, 'YYYY-MM-DD HH:MM:SS.mmm' (DateTime64(3, 'UTC') text form). */
  received_at: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3}$' }),
  ab_test: Type.Boolean(),
  ab_group: Type.Union([Type.Literal('control'), Type.Literal('test'), Type.Null()]),
  /** Bounded like the tracking field, so a message that bypassed the ingest cannot add a huge statistics row either. */
  popup_version: Type.String({ maxLength: TRACKING_LIMITS.popupVersionMaxLength }),
  /** 'popup' | 'chat_button' | '' */
  open_way: Type.String(),
  order_num: Type.String({ maxLength: 512 }),
  /** data.currency as sent (upper-cased), '' when absent. */
  currency: Type.String({ maxLength: 3 }),
  /** Sum of value × quantity over items, in the items' own currencies. 0 without items. */
  total_value: Type.Number(),
  /** The same sum in EUR at the static rates; null when any item's currency is unknown. */
  total_value_base: Type.Union([Type.Number(), Type.Null()]),
  items: Type.Array(StoredItem, { maxItems: 50 }),
  url: Type.String({ maxLength: 2048 }),
  user_agent: Type.String({ maxLength: 1024 }),
  /** Keyed hash of the client IP (never the raw address); '' when unknown. */
  client_hash: Type.String(),
  /** The raw `data` payload as JSON text ('{}' when absent). */
  data: Type.String(),
  /**
   * user_agent is a known bot's (isBotUserAgent). Statistics leave such rows out; they are
   * stored for the data team. Optional only for messages published before the column
   * existed (stored as false); the ingest always sets it.
   */
  is_bot: Type.Optional(Type.Boolean()),
  /**
   * The visitor's segment (segment.ts): on a `visitor` event, where it came from
   * (utm_source, else the referrer's host, else 'direct') and the page URL's utm_medium and
   * utm_campaign; '' on other events. `device` on every event. Optional only for messages
   * published before the columns existed (stored as ''); the ingest always sets them.
   */
  source: Type.Optional(Segment()),
  utm_medium: Type.Optional(Segment()),
  utm_campaign: Type.Optional(Segment()),
  device: Type.Optional(Segment()),
  /**
   * The visitor's holdout arm (holdout.ts): computed by the ingest from the token and the
   * chatbot's settings, never taken from the client; '' when the chatbot runs no holdout.
   * Optional only for messages published before the column existed (stored as '').
   */
  holdout: Type.Optional(Type.Union([Type.Literal('exposed'), Type.Literal('holdout'), Type.Literal('')])),
});
export type StoredEvent = Static<typeof StoredEvent>;
export type StoredItem = Static<typeof StoredItem>;
