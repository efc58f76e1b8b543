import { DEFAULT_CURRENCY, eurRate, normalizeCurrency } from './currency.js';
import { isBotUserAgent } from './bot-filter.js';
import { deviceOf, trafficSource } from './segment.js';
import { stripPersonalUrl } from './url-privacy.js';
import { clientEventId, newEventId } from './event-id.js';
import type { StoredEvent, StoredItem } from './stored-event.js';
import { TRACKING_LIMITS, type TrackingItem } from './tracking-schema.js';
import type { TrackingEvent } from './validate-tracking.js';

export interface NormalizeContext {
  /** Server time the request arrived (see the stored-event rules in services/ingest/README.md: statistics never use a client clock). */
  receivedAt: Date;
  /** The request's User-Agent header, used when data.user_agent is absent. Whichever is stored is what is_bot classifies. */
  userAgentHeader?: string;
  /** Keyed hash of the client IP (createClientHasher); never the raw address. */
  clientHash?: string;
  /** Id used when data.event_id is not a usable UUID (e.g. eventIdFromSeed for a backfill); else a fresh UUID v7. */
  fallbackEventId?: string;
  log: { warn(obj: object, msg: string): void };
}

// The last millisecond formatted: under load a dozen requests share each millisecond, and
// toISOString plus the slices cost about half a microsecond per event.
let lastMs = NaN;
let lastText = '';

/** 'YYYY-MM-DD HH:MM:SS.mmm' in UTC: ClickHouse's DateTime64(3, 'UTC') text form. */
export function formatReceivedAt(date: Date): string {
  const ms = date.getTime();
  // An invalid date (NaN) never equals the memo, so toISOString still throws for it.
  if (ms !== lastMs) {
    const iso = date.toISOString();
    lastText = `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
    lastMs = ms;
  }
  return lastText;
}

/** Per the stored-event rules in services/ingest/README.md: the token's last character assigns the A/B group, only when the event opted in. */
export function abGroupOf(abTest: boolean, token: string): 'control' | 'test' | null {
  if (!abTest) return null;
  const last = token[token.length - 1];
  return last === '0' ? 'control' : last === '1' ? 'test' : null;
}

const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

function normalizeItem(item: TrackingItem, eventCurrency: string): StoredItem {
  const id = item.item_id ?? item.id;
  const value = item.value ?? item.price;
  const quantity = item.quantity ?? undefined;
  const currency = typeof item.currency === 'string' && item.currency.trim() !== ''
    ? normalizeCurrency(item.currency)
    : eventCurrency;
  return {
    item_id: text(id),
    value: value === undefined || value === null ? 0 : Number(value),
    quantity: quantity === undefined ? 1 : Number(quantity),
    currency,
  };
}

/**
 * Sums value × quantity in the items' own currencies and in EUR. Full Float64 precision is
 * kept: rounding to cents here would bias every later sum; statistics round at the end.
 */
function totals(items: StoredItem[]): { total: number; base: number | null; unknown: string[] } {
  let total = 0;
  let base = 0;
  const unknown: string[] = [];
  for (const item of items) {
    const line = item.value * item.quantity;
    total += line;
    const rate = eurRate(item.currency);
    if (rate === undefined) {
      if (!unknown.includes(item.currency)) unknown.push(item.currency);
    } else {
      base += line * rate;
    }
  }
  return { total, base: unknown.length > 0 ? null : base, unknown };
}

/**
 * The page URL and referrer as stored (url-privacy.ts): in the `url` column and inside the raw
 * `data` text alike, which is serialised again only when one of them changed.
 */
function privateUrls(data: TrackingEvent['data'], rawData: string): { url: string; referrer: string; rawData: string } {
  const url = stripPersonalUrl(text(data.url));
  const referrer = stripPersonalUrl(text(data.referrer));
  const changed = (typeof data.url === 'string' && url !== data.url)
    || (typeof data.referrer === 'string' && referrer !== data.referrer);
  if (!changed) return { url, referrer, rawData };
  const cleaned: Record<string, unknown> = { ...data };
  if (typeof data.url === 'string') cleaned.url = url;
  if (typeof data.referrer === 'string') cleaned.referrer = referrer;
  return { url, referrer, rawData: JSON.stringify(cleaned) };
}

/** Turns a validated tracking request into the stored row (see the stored-event rules in services/ingest/README.md). */
export function normalizeEvent(input: TrackingEvent, ctx: NormalizeContext): StoredEvent {
  const { data } = input;
  const urls = privateUrls(data, input.rawData);
  const eventId = clientEventId(data.event_id) ?? ctx.fallbackEventId ?? newEventId(ctx.receivedAt.getTime());
  const eventCurrency = typeof data.currency === 'string' ? normalizeCurrency(data.currency) : '';
  const items = (data.items ?? []).map((item) => normalizeItem(item, eventCurrency || DEFAULT_CURRENCY));
  const sums = totals(items);
  if (sums.unknown.length > 0) {
    ctx.log.warn({ eventId, currencies: sums.unknown }, 'unknown currency: total_value_base stored as null');
  }
  const userAgent = typeof data.user_agent === 'string'
    ? data.user_agent
    // The header has no length limit of its own; the column does.
    : (ctx.userAgentHeader ?? '').slice(0, TRACKING_LIMITS.userAgentMaxLength);
  // The source is a page view's: other events store '' (their URL is not where the visit began).
  const traffic = input.event === 'visitor'
    ? trafficSource(urls.url, urls.referrer)
    : { source: '', utm_medium: '', utm_campaign: '' };
  return {
    event_id: eventId,
    event: input.event,
    token: input.token,
    chatbot_id: text(data.chatbot_id),
    received_at: formatReceivedAt(ctx.receivedAt),
    ab_test: input.ab_test,
    ab_group: abGroupOf(input.ab_test, input.token),
    popup_version: text(data.popup_version),
    open_way: text(data.open_way),
    order_num: text(data.orderNum),
    currency: eventCurrency,
    total_value: sums.total,
    total_value_base: sums.base,
    items,
    url: urls.url,
    user_agent: userAgent,
    client_hash: ctx.clientHash ?? '',
    data: urls.rawData,
    is_bot: isBotUserAgent(userAgent),
    ...traffic,
    device: deviceOf(userAgent),
    // The ingest sets the arm from the chatbot's settings (holdout.ts); whatever the client sent is not read.
    holdout: '',
  };
}
