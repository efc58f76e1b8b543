import { holdoutArmOf, type HoldoutArm, type StoredEvent, type StoredItem } from '@chatlytics/events';
import { createRng, type Rng } from './prng.js';
import { EUR_RATES } from './currency.js';
import { HOUR_MS, MINUTE_MS } from '@chatlytics/core';
import { DAY_MS, chTime } from './time.js';

export interface EventScenario {
  seed: number;
  /** The clock the statistics will be asked at; events are placed around it. */
  now: number;
  /** The chatbot the statistics are asked about. */
  chatbotId: string;
  /** Chatbots whose events must never leak into the asked chatbot's numbers. */
  otherChatbotIds: readonly string[];
  /** Visitors' journeys to generate (default: 20–80, drawn from the seed). */
  users?: number;
  /** How far back history goes (default 45 days: longer than the 30-day windows tested). */
  spanDays?: number;
  /**
   * Window lengths (days) whose exact ends get events: an event at exactly now − k days and
   * one at exactly now test that both window ends are inclusive.
   */
  boundaryDays?: readonly number[];
  /**
   * The asked chatbot runs a holdout: its events carry the arm the ingest would give them
   * (holdoutArmOf under `key` at `percent`); other chatbots' events carry none. A held-out
   * visitor's purchases are each dropped with probability `dropPurchase` (default 0): the
   * assistant's known lift. A few tokens (1 in 50) get one event of the other arm, as when the
   * percentage changed within the window.
   */
  holdout?: { percent: number; key: string; dropPurchase?: number };
}

// Empty and unusual versions on purpose: '' must group as `unknown`, and byte order differs
// from locale order for upper case and non-ASCII.
const POPUP_VERSIONS = ['v1', 'v2', 'v10', 'B', '', 'ä-test', 'unknown', 'Zeta'];
const OPEN_WAYS = ['popup', 'chat_button', 'chat_button', ''];
// Unknown codes ('XYZ', 'BTC') make total_value_base null: revenue must count them as 0.
const CURRENCIES = ['EUR', 'EUR', 'USD', 'GBP', 'CHF', 'SEK', 'HUF', 'XYZ', 'BTC'];
// A/B group comes from the token's last character: 0 control, 1 test, anything else none.
const TOKEN_ENDINGS = ['0', '1', '0', '1', 'x', '9', '_'];
// A browser's and crawlers' User-Agents: is_bot is what the ingest's classifier says of each.
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0';
const BOT_UAS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
];

// Segments (packages/events segment.ts): sources differing only in case ('Google') must stay
// apart under exact match; '' is a row stored before the columns existed. Campaigns come from a
// pool larger than the 50 rows the sources statistic shows, so its `other` row is exercised.
const SOURCES = ['direct', 'direct', 'google', 'google', 'facebook', 'newsletter', 'shop.example', 'Google', ''];
const MEDIUMS = ['', 'cpc', 'email', 'social'];
const DEVICES = ['desktop', 'desktop', 'mobile', 'mobile', 'tablet'];

/** A `visitor` event's segment; other events carry only the device. From an rng of its own, so the rest of the history is the same as without it. */
function segmentOf(rng: Rng, event: string) {
  const device = rng.pick(DEVICES);
  if (event !== 'visitor') return { source: '', utm_medium: '', utm_campaign: '', device };
  const source = rng.pick(SOURCES);
  const tagged = source !== 'direct' && source !== '' && rng.chance(0.6);
  return { source, utm_medium: tagged ? rng.pick(MEDIUMS) : '', utm_campaign: tagged ? `camp-${rng.int(1, 120)}` : '', device };
}

interface Draft {
  event: string;
  at: number;
  popup_version?: string;
  open_way?: string;
  order_num?: string;
  purchase?: { items: StoredItem[]; currency: string };
}

function purchaseOf(rng: Rng): Draft['purchase'] {
  const currency = rng.chance(0.2) ? '' : rng.pick(CURRENCIES);
  const items: StoredItem[] = Array.from({ length: rng.int(0, 3) }, () => ({
    item_id: `sku-${rng.int(1, 40)}`,
    // Cents, like real prices: sums then differ between engines only by float noise.
    value: rng.int(50, 25_000) / 100,
    quantity: rng.int(1, 3),
    currency: rng.chance(0.7) ? (currency || 'EUR') : rng.pick(CURRENCIES),
  }));
  return { items, currency };
}

/** One visitor's journey: sessions of funnel events, purchases before and after chatting. */
function journey(rng: Rng, start: number, end: number, orderPool: string[]): Draft[] {
  const drafts: Draft[] = [];
  const sessions = rng.int(1, 3);
  for (let s = 0; s < sessions; s++) {
    let t = start + Math.floor(rng.next() * (end - start));
    const step = () => (t += rng.int(1, 20 * 60_000));
    if (rng.chance(0.85)) drafts.push({ event: 'visitor', at: t });
    if (rng.chance(0.6)) {
      const version = rng.pick(POPUP_VERSIONS);
      drafts.push({ event: 'popup_displayed', at: step(), popup_version: version });
      if (rng.chance(0.4)) drafts.push({ event: 'popup_opened', at: step(), popup_version: rng.chance(0.9) ? version : rng.pick(POPUP_VERSIONS) });
    }
    if (rng.chance(0.15)) drafts.push({ event: 'purchase', at: step(), order_num: orderNum(rng, orderPool), purchase: purchaseOf(rng) });
    if (rng.chance(0.45)) drafts.push({ event: 'bot_open', at: step() });
    if (rng.chance(0.4)) {
      drafts.push({ event: 'convo_started', at: step(), open_way: rng.pick(OPEN_WAYS) });
      for (let m = rng.int(0, 3); m > 0; m--) drafts.push({ event: rng.pick(['message_sent', 'message_like', 'message_dislike', 'click_through']), at: step() });
    }
    if (rng.chance(0.3)) drafts.push({ event: rng.pick(['added_to_cart', 'go_to_cart', 'error']), at: step() });
    for (let p = rng.chance(0.35) ? rng.int(1, 2) : 0; p > 0; p--) {
      drafts.push({ event: 'purchase', at: step(), order_num: orderNum(rng, orderPool), purchase: purchaseOf(rng) });
    }
  }
  return drafts;
}

/**
 * Order numbers come from a small shared pool so that the same order shows up again (another
 * beacon, another token, weeks later), also once before the window and again inside it.
 */
function orderNum(rng: Rng, pool: string[]): string {
  if (rng.chance(0.25)) return '';
  if (pool.length > 0 && rng.chance(0.35)) return rng.pick(pool);
  const num = `ORD-${rng.int(1000, 99_999)}`;
  pool.push(num);
  return num;
}

function totals(p: NonNullable<Draft['purchase']>): { total: number; base: number | null } {
  let total = 0;
  let base: number | null = 0;
  for (const item of p.items) {
    total += item.value * item.quantity;
    const rate = EUR_RATES[item.currency];
    base = rate === undefined || base === null ? null : base + item.value * item.quantity * rate;
  }
  return { total, base };
}

/**
 * Random but reproducible tracking history for one chatbot plus noise: other chatbots' events,
 * events without a chatbot, retried beacons (same event_id, later received_at, sometimes across
 * a window end), duplicate order numbers, unknown currencies and every A/B token ending.
 */
export function generateEvents(scenario: EventScenario): StoredEvent[] {
  const rng = createRng(scenario.seed);
  const { now } = scenario;
  const start = now - (scenario.spanDays ?? 45) * DAY_MS;
  // A little past `now`: rows stored after the asked moment must be outside the window.
  const end = now + 10 * 60_000;
  const users = scenario.users ?? rng.int(20, 80);
  const orderPools = new Map<string, string[]>();
  const rows: StoredEvent[] = [];
  const segmentRng = createRng(scenario.seed + 0x5e6);
  // The holdout's draws come from an rng of their own: without a holdout the history is unchanged.
  const holdoutRng = createRng(scenario.seed + 0x401d);
  const armOf = (token: string, chatbotId: string): HoldoutArm =>
    (scenario.holdout && chatbotId === scenario.chatbotId ? holdoutArmOf(scenario.holdout.key, chatbotId, token, scenario.holdout.percent) : '');
  const switching = new Set<string>();

  const emit = (d: Draft, token: string, chatbotId: string, abTest: boolean, bot?: { rng: Rng; out: StoredEvent[] }) => {
    let holdout = armOf(token, chatbotId);
    if (holdout !== '' && switching.has(token)) {
      switching.delete(token);
      holdout = holdout === 'holdout' ? 'exposed' : 'holdout';
    }
    const last = token[token.length - 1];
    const abGroup = abTest && last === '0' ? 'control' : abTest && last === '1' ? 'test' : null;
    const sums = d.purchase ? totals(d.purchase) : { total: 0, base: 0 };
    const data: Record<string, unknown> = { chatbot_id: chatbotId };
    if (d.popup_version) data.popup_version = d.popup_version;
    if (d.open_way) data.open_way = d.open_way;
    if (d.order_num) data.orderNum = d.order_num;
    if (d.purchase) data.items = d.purchase.items;
    (bot?.out ?? rows).push({
      event_id: (bot?.rng ?? rng).uuid(), event: d.event, token, chatbot_id: chatbotId, received_at: chTime(d.at),
      ab_test: abTest, ab_group: abGroup, popup_version: d.popup_version ?? '', open_way: d.open_way ?? '',
      order_num: d.order_num ?? '', currency: d.purchase?.currency ?? '', total_value: sums.total,
      total_value_base: sums.base, items: d.purchase?.items ?? [], url: 'https://shop.example/p',
      user_agent: bot ? bot.rng.pick(BOT_UAS) : BROWSER_UA, client_hash: '', data: JSON.stringify(data), is_bot: bot !== undefined,
      ...segmentOf(segmentRng, d.event),
      holdout,
    });
  };

  for (let u = 0; u < users; u++) {
    const token = `tok${rng.string(rng.int(6, 12))}${rng.pick(TOKEN_ENDINGS)}`;
    const roll = rng.next();
    const chatbotId = roll < 0.7 ? scenario.chatbotId : roll < 0.95 && scenario.otherChatbotIds.length > 0 ? rng.pick(scenario.otherChatbotIds) : '';
    const pool = orderPools.get(chatbotId) ?? [];
    orderPools.set(chatbotId, pool);
    const abTest = rng.chance(0.7);
    if (scenario.holdout && holdoutRng.chance(0.02)) switching.add(token);
    const dropPurchase = armOf(token, chatbotId) === 'holdout' ? scenario.holdout?.dropPurchase ?? 0 : 0;
    for (const d of journey(rng, start, end, pool)) {
      if (d.at > end) continue;
      if (d.event === 'purchase' && dropPurchase > 0 && holdoutRng.chance(dropPurchase)) continue;
      // Rarely a single event without A/B: a token's group must come from any of its events.
      emit(d, token, chatbotId, rng.chance(0.1) ? !abTest : abTest);
    }
  }

  // Events exactly on the window ends: both ends are inclusive.
  for (const days of scenario.boundaryDays ?? []) {
    const token = `edge${rng.string(8)}${rng.pick(TOKEN_ENDINGS)}`;
    const pool = orderPools.get(scenario.chatbotId) ?? [];
    for (const event of ['visitor', 'popup_displayed', 'convo_started', 'purchase', 'click_through']) {
      const draft: Draft = { event, at: now - days * DAY_MS, popup_version: 'edge', open_way: 'popup' };
      if (event === 'purchase') Object.assign(draft, { order_num: orderNum(rng, pool), purchase: purchaseOf(rng) });
      emit(draft, token, scenario.chatbotId, true);
    }
    emit({ event: 'visitor', at: now }, token, scenario.chatbotId, true);
  }

  // Retried beacons: same row, later received_at (ms to days later, so some cross a window end).
  const copies: StoredEvent[] = [];
  for (const row of rows) {
    if (!rng.chance(0.1)) continue;
    const delay = rng.pick([1, 250, MINUTE_MS, 3 * HOUR_MS, 2 * DAY_MS]) + rng.int(0, 999);
    const at = Date.parse(`${row.received_at.replace(' ', 'T')}Z`) + delay;
    if (at <= end) copies.push({ ...row, received_at: chTime(at) });
  }
  return [...rows, ...copies, ...botEvents(scenario, rows, orderPools, start, end, emit)];
}

/**
 * Crawlers: whole journeys on bot tokens (purchases drawing on the same order numbers as the
 * visitors, so a bot's row can be an order's earliest), a few bot events on visitors' tokens,
 * and retried copies. Statistics must come out as if none of them existed. From an rng of
 * their own, so the visitors' rows are the same with or without them.
 */
function botEvents(
  scenario: EventScenario, visitorRows: readonly StoredEvent[], orderPools: Map<string, string[]>, start: number, end: number,
  emit: (d: Draft, token: string, chatbotId: string, abTest: boolean, bot: { rng: Rng; out: StoredEvent[] }) => void,
): StoredEvent[] {
  const rng = createRng(scenario.seed + 0x0b07);
  const out: StoredEvent[] = [];
  const bot = { rng, out };
  const pool = orderPools.get(scenario.chatbotId) ?? [];
  for (let b = rng.int(2, 5); b > 0; b--) {
    const token = `crawl${rng.string(8)}${rng.pick(TOKEN_ENDINGS)}`;
    for (const d of journey(rng, start, end, pool)) if (d.at <= end) emit(d, token, scenario.chatbotId, rng.chance(0.7), bot);
  }
  const mine = visitorRows.filter((r) => r.chatbot_id === scenario.chatbotId);
  for (let n = mine.length > 0 ? 6 : 0; n > 0; n--) {
    const r = rng.pick(mine);
    const at = Date.parse(`${r.received_at.replace(' ', 'T')}Z`) + rng.int(-HOUR_MS, HOUR_MS);
    const event = rng.pick(['visitor', 'popup_displayed', 'convo_started', 'purchase', 'click_through']);
    const draft: Draft = { event, at, popup_version: 'v1', open_way: 'popup' };
    if (event === 'purchase') Object.assign(draft, { order_num: orderNum(rng, pool), purchase: purchaseOf(rng) });
    if (at <= end) emit(draft, r.token, scenario.chatbotId, r.ab_test, bot);
  }
  const copies = out.filter(() => rng.chance(0.1)).map((row) => ({ ...row, received_at: chTime(Date.parse(`${row.received_at.replace(' ', 'T')}Z`) + 60_000) }));
  return [...out, ...copies.filter((c) => Date.parse(`${c.received_at.replace(' ', 'T')}Z`) <= end)];
}
