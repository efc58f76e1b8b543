import { TRACKING_LIMITS as L } from '@chatlytics/events';
import { TOKEN } from './helper.js';

/**
 * The tracking validation table, shared by the single-event routes' test and the batch route's:
 * [name, body, expected status with its code (400) or the fields named (422)].
 */
export type Expect = { status: 200 } | { status: 400; code: 'ANALYTICS_001' | 'ANALYTICS_002' } | { status: 422; fields: string[] };
export type Row = [name: string, body: Record<string, unknown>, expect: Expect];

const ok: Expect = { status: 200 };
const bad = (...fields: string[]): Expect => ({ status: 422, fields });
const s = (n: number) => 'a'.repeat(n);
const ev = (data?: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ event: 'purchase', token: TOKEN, ...(data ? { data } : {}), ...extra });
const it = (fields: Record<string, unknown>) => ev({ items: [fields] });

export const rows: Row[] = [
  ['valid purchase', ev({ chatbot_id: 'bot', orderNum: 'o-1', items: [{ item_id: 'p', value: 10, quantity: 2, currency: 'USD' }] }), ok],
  ['tracktrans', { event: 'tracktrans', token: TOKEN }, ok],
  ['unknown event', { event: 'page_view', token: TOKEN }, bad('event')],
  ['event 51 chars', { event: s(51), token: TOKEN }, bad('event')],
  ['missing event and token', {}, bad('event', 'token')],
  ['token 8', { event: 'visitor', token: s(8) }, ok],
  ['token 7', { event: 'visitor', token: s(7) }, bad('token')],
  ['token 128', { event: 'visitor', token: s(128) }, ok],
  ['token 129', { event: 'visitor', token: s(129) }, bad('token')],
  ['token bad character', { event: 'visitor', token: 'abc$defgh' }, bad('token')],
  ['data 50,000 bytes', ev({ p: 'x'.repeat(L.dataMaxBytes - 8) }), ok],
  ['data 50,001 bytes', ev({ p: 'x'.repeat(L.dataMaxBytes - 7) }), { status: 400, code: 'ANALYTICS_002' }],
  ['items 50', ev({ items: Array.from({ length: 50 }, () => ({ value: 1 })) }), ok],
  ['items 51', ev({ items: Array.from({ length: 51 }, () => ({ value: 1 })) }), bad('data.items')],
  ['item_id 128', it({ item_id: s(128) }), ok],
  ['item_id 129', it({ item_id: s(129) }), bad('data.items.0.item_id')],
  ['id 129', it({ id: s(129) }), bad('data.items.0.id')],
  ['quantity 1', it({ quantity: 1 }), ok],
  ['quantity 0', it({ quantity: 0 }), bad('data.items.0.quantity')],
  ['price alias non-numeric', it({ price: 'ten' }), bad('data.items.0.price')],
  ['currency 3', it({ currency: 'CHF' }), ok],
  ['currency 4', it({ currency: 'CHFX' }), bad('data.items.0.currency')],
  ['orderNum 512', ev({ orderNum: s(512) }), ok],
  ['orderNum 513', ev({ orderNum: s(513) }), bad('data.orderNum')],
  ['chatbot_id 512', ev({ chatbot_id: s(512) }), ok],
  ['chatbot_id 513', ev({ chatbot_id: s(513) }), bad('data.chatbot_id')],
  ['url 2048', ev({ url: s(2048) }), ok],
  ['url 2049', ev({ url: s(2049) }), bad('data.url')],
  ['user_agent 1024', ev({ user_agent: s(1024) }), ok],
  ['user_agent 1025', ev({ user_agent: s(1025) }), bad('data.user_agent')],
  ['popup_version 100', ev({ popup_version: s(L.popupVersionMaxLength) }), ok],
  ['popup_version 101', ev({ popup_version: s(L.popupVersionMaxLength + 1) }), bad('data.popup_version')],
  ['open_way chat_button', ev({ open_way: 'chat_button' }), ok],
  ['open_way other', ev({ open_way: 'banner' }), bad('data.open_way')],
  ['data not an object', ev(undefined, { data: [1] }), { status: 400, code: 'ANALYTICS_001' }],
  ['ab_test invalid', ev(undefined, { ab_test: 'maybe' }), bad('ab_test')],
];

