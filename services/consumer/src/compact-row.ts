import type { StoredEvent } from '@chatlytics/events';

/**
 * The `events` columns the consumer inserts, in the order of a JSONCompactEachRow row.
 * The same names, in the same order, as the StoredEvent schema's properties (a unit test
 * holds the two together): a property added there must be added here.
 */
export const EVENT_COLUMNS = [
  'event_id', 'event', 'token', 'chatbot_id', 'received_at', 'ab_test', 'ab_group', 'popup_version',
  'open_way', 'order_num', 'currency', 'total_value', 'total_value_base', 'items', 'url', 'user_agent',
  'client_hash', 'data',
] as const;

/**
 * One validated event as a JSONCompactEachRow line (without the newline): a JSON array of the
 * column values, items as [item_id, value, quantity, currency] tuples. Why not pass the bus
 * bytes through as JSONEachRow (no serialisation at all)? ClickHouse parses the compact form
 * with less CPU than it saves here (bench:pipeline: the insert is the slower side of the
 * pipeline on 2 cores), and JSON.stringify never emits a raw newline, so a row can never be
 * split by a pretty-printed producer.
 */
export function compactRow(e: StoredEvent): string {
  const items = e.items.length === 0 ? [] : e.items.map((i) => [i.item_id, i.value, i.quantity, i.currency]);
  return JSON.stringify([
    e.event_id, e.event, e.token, e.chatbot_id, e.received_at, e.ab_test, e.ab_group, e.popup_version,
    e.open_way, e.order_num, e.currency, e.total_value, e.total_value_base, items, e.url, e.user_agent,
    e.client_hash, e.data,
  ]);
}
