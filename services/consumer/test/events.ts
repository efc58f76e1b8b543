import { randomUUID } from 'node:crypto';
import type { StoredEvent } from '@chatlytics/events';
import type { BusMessage } from '@chatlytics/bus';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** DateTime64(3) text of a time. */
export function chTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

/** A valid StoredEvent; `i` varies the token (the partition key) and the payload. */
export function storedEvent(i: number, over: Partial<StoredEvent> = {}): StoredEvent {
  return {
    event_id: randomUUID(),
    event: i % 5 === 0 ? 'purchase' : 'visitor',
    token: `user_${String(i % 97).padStart(6, '0')}`,
    chatbot_id: 'bot-1',
    received_at: chTime(Date.UTC(2026, 0, 15, 12, 0, 0) + i),
    ab_test: false,
    ab_group: null,
    popup_version: '',
    open_way: '',
    order_num: i % 5 === 0 ? `order-${i}` : '',
    currency: '',
    total_value: i % 5 === 0 ? 19.9 : 0,
    total_value_base: i % 5 === 0 ? 19.9 : 0,
    items: i % 5 === 0 ? [{ item_id: 'sku-1', value: 19.9, quantity: 1, currency: 'EUR' }] : [],
    url: 'https://shop.example/p/1',
    user_agent: 'Mozilla/5.0',
    client_hash: '',
    data: '{}',
    // Every seventh event a crawler's: the flag must travel to ClickHouse on every path.
    is_bot: i % 7 === 3,
    // The segment travels on every path too (the fast path reads it after is_bot).
    source: i % 3 === 0 ? 'google' : 'direct',
    utm_medium: i % 3 === 0 ? 'cpc' : '',
    utm_campaign: i % 6 === 0 ? 'spring-sale' : '',
    device: i % 2 === 0 ? 'mobile' : 'desktop',
    // The holdout arm, last (the fast path reads it after the segment).
    holdout: i % 3 === 0 ? 'holdout' : i % 3 === 1 ? 'exposed' : '',
    ...over,
  };
}

export const toMessage = (e: StoredEvent): BusMessage => ({ key: e.token, value: Buffer.from(JSON.stringify(e)) });
export const events = (n: number, from = 0) => Array.from({ length: n }, (_, i) => storedEvent(from + i));
