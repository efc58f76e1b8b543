/**
 * The data sets of the stats bench (index.ts), generated inside ClickHouse (INSERT … SELECT from
 * numbers()), and the targets each is held to.
 *
 *   default:  10M events over 90 days, 100 chatbots (~100k events each in the 30-day window).
 *   big-shop: ONE chatbot with 10M events, all inside the 30-day window, 2M distinct tokens.
 *   huge-shop: as big-shop with 100M events and 20M tokens (bench only, not CI; --events
 *     sets the events, the tokens stay a fifth of them).
 * Both: 1 % retried beacons (same event_id, later received_at; none after the clock), 2 % crawler tokens (is_bot),
 * orders that repeat, 5 % of purchases in an unknown currency.
 */
import { clickhouseTime, parseClickhouseTime, VIEW_FED_TABLES, type ClickHouseEngine } from '@chatlytics/clickhouse';
import type { Report } from '../lib/report.js';

export interface StatsProfile {
  name: 'default' | 'big-shop' | 'huge-shop';
  events: number;
  chatbots: number;
  tokensPerChatbot: number;
  /** Originals are received in the `days` before the clock (big-shop: the window's 30 less its first hour). */
  days: number;
  /** How much later a retried beacon arrives: 1 ms to this many ms. */
  retryMs: number;
  targetP95Ms: number;
  /** The four requested together, as the analytics page does (big-shop only). */
  targetPageMs?: number;
  /** Least speed-up over PostgreSQL (p50 ratio); 0: none asked (the default profile's size is at the engine's per-query floor). */
  targetSpeedup: number;
}

const DAY_MS = 86_400_000;

export function statsProfile(name: string, events: number): StatsProfile {
  if (name === 'big-shop') {
    return { name, events, chatbots: 1, tokensPerChatbot: 2_000_000, days: 30, retryMs: DAY_MS, targetP95Ms: 150, targetPageMs: 300, targetSpeedup: 30 };
  }
  if (name === 'huge-shop') {
    const huge = events === 10_000_000 ? 100_000_000 : events;
    return { name, events: huge, chatbots: 1, tokensPerChatbot: Math.round(huge / 5), days: 30, retryMs: DAY_MS, targetP95Ms: 300, targetPageMs: 600, targetSpeedup: 0 };
  }
  if (name === 'default') {
    return { name, events, chatbots: 100, tokensPerChatbot: 30_000, days: 90, retryMs: 2 * DAY_MS, targetP95Ms: 25, targetSpeedup: 0 };
  }
  throw new Error(`unknown profile ${name} (default, big-shop, huge-shop)`);
}

export const botId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
/** Whether chatbot i has A/B testing on, as generateSql marks its rows (every other chatbot). */
export const abTestOn = (i: number) => i % 2 === 0;

/**
 * One row per number: chatbot = n mod chatbots; tokens from a per-chatbot pool (last character
 * 0, 1 or x for the A/B groups); event types in realistic proportions; order numbers from a
 * pool so that orders repeat; 5 % of purchases in an unknown currency (NULL base value); 2 % of
 * the tokens crawlers (is_bot), whose rows every statistic leaves out. Every other chatbot has
 * A/B testing on (the big shop's one chatbot has it).
 */
/** Rows per INSERT of generateSql (--insert-rows sets another, e.g. the consumer's batch). */
export const GENERATE_CHUNK_ROWS = 500_000;

/**
 * The generator numbers tokens itself, as a writer outside the bus does (clickhouse/README.md,
 * "Token ids"): token u of a chatbot's pool has id u + 1 in a slot of the bench's own, stored in
 * token_ids (tokenMapSql) before any row. Dense per chatbot, as the consumer's ids are.
 */
const ID_SLOT = 4096;
const tokenIdSql = (u: string) => `bitOr(bitShiftLeft(toUInt64(${ID_SLOT}), 40), ${u} + 1)`;
const tokenSql = (u: string) => `concat('tok', toString(${u}), ['0', '1', 'x'][${u} % 3 + 1])`;
const chatbotSql = (c: string) => `concat('00000000-0000-4000-8000-', leftPad(toString(${c}), 12, '0'))`;

/** Every token of every chatbot's pool with its id, into token_ids: run before generateSql. */
export function tokenMapSql(p: StatsProfile): string {
  return `
INSERT INTO token_ids (chatbot_id, token, token_id)
SELECT ${chatbotSql('c')} AS chatbot_id, ${tokenSql('u')} AS token, ${tokenIdSql('u')} AS token_id
FROM (SELECT number % ${p.chatbots} AS c, intDiv(number, ${p.chatbots}) AS u FROM numbers(${p.chatbots * p.tokensPerChatbot}))`;
}

export function generateSql(p: StatsProfile): string {
  // big-shop: originals in (clock - 30 days + 1 h, clock - 1 s], so every retry (≤ 1 day later)
  // is inside the 30-day window ending at the clock, and the hour the clock is in has rows as a
  // live shop's has. huge-shop alike.
  const oneShop = p.name !== 'default';
  const shift = oneShop ? 1000 : 0;
  const span = oneShop ? p.days * DAY_MS - 3_600_000 - 1000 : p.days * DAY_MS;
  return `
INSERT INTO events_input_v2 (event_id, event, token, chatbot_id, received_at, ab_test, ab_group, popup_version, open_way,
                    order_num, currency, total_value, total_value_base, items, url, user_agent, client_hash, data, is_bot, holdout, token_id, insert_key)
SELECT
    reinterpretAsUUID(reverse(unhex(lpad(hex(n), 32, '0')))) AS event_id,
    multiIf(k < 30, 'visitor', k < 50, 'popup_displayed', k < 55, 'popup_opened', k < 65, 'bot_open',
            k < 72, 'convo_started', k < 87, 'message_sent', k < 91, 'click_through', k < 93, 'message_like',
            k < 94, 'message_dislike', k < 97, 'purchase', 'go_to_cart') AS event,
    ${tokenSql('u')} AS token,
    ${chatbotSql(`n % ${p.chatbots}`)} AS chatbot_id,
    {now:DateTime64(3, 'UTC')} - toIntervalMillisecond(${shift} + cityHash64(n, 't') % ${span}) AS received_at,
    (n % ${p.chatbots}) % 2 = 0 AS ab_test,
    if(ab_test AND u % 3 < 2, ['control', 'test'][u % 3 + 1], NULL) AS ab_group,
    if(event IN ('popup_displayed', 'popup_opened'), ['v1', 'v2', 'v3', ''][h % 4 + 1], '') AS popup_version,
    if(event = 'convo_started', ['popup', 'chat_button', ''][h % 3 + 1], '') AS open_way,
    if(event = 'purchase' AND h % 4 != 0, concat('ORD-', toString(h % 400000)), '') AS order_num,
    '' AS currency,
    if(event = 'purchase', (h % 20000) / 100, 0) AS total_value,
    if(event = 'purchase', if(h % 20 = 0, NULL, (h % 20000) / 100), 0) AS total_value_base,
    [] AS items, '' AS url, if(is_bot, 'Mozilla/5.0 (compatible; Googlebot/2.1)', '') AS user_agent, '' AS client_hash, '{}' AS data,
    cityHash64(u, 'bot') % 50 = 0 AS is_bot,
    -- A holdout of 10 % of the tokens (the statistic reads the stored arm; the ingest's keyed hash is not needed here).
    if(cityHash64(u, 'holdout') % 100 < 10, 'holdout', 'exposed') AS holdout,
    ${tokenIdSql('u')} AS token_id,
    {first:UInt64} + 1 AS insert_key
FROM (SELECT number AS n, cityHash64(number, 'k') % 100 AS k, cityHash64(number, 'u') % ${p.tokensPerChatbot} AS u, cityHash64(number, 'h') AS h
      FROM numbers({first:UInt64}, {count:UInt64}))
SETTINGS max_insert_threads = 1`;
}

/**
 * Retried beacons: 1 % of events again, 1 ms to retryMs later; a retry that would arrive after
 * the clock has not arrived yet, so it is left out (params: now, as generateSql's).
 */
export function retriesSql(p: StatsProfile): string {
  return `
INSERT INTO events_input_v2
SELECT * FROM
(
    SELECT * REPLACE (received_at + toIntervalMillisecond(cityHash64(event_id) % ${p.retryMs} + 1) AS received_at, now64(3) AS inserted_at,
        toUInt64(${p.events} + 1) AS insert_key, false AS token_id_new)
    FROM events WHERE cityHash64(event_id, 'r') % 100 = 0
)
WHERE received_at <= {now:DateTime64(3, 'UTC')}`;
}

/**
 * The shop's orders (revenue source 'orders'), from the stored events: one report per counted
 * purchase with an order number (the order the shop confirms; an order number's later purchases
 * report it again, the largest version wins), 2 % of them cancelled; 5 % of the shop's orders
 * the tracker never saw (from go_to_cart rows, as a buyer with an ad blocker); a refund of a
 * fifth of the value on 10 % (order_refunds). Each with its token's id, as the consumer stores
 * it (migration 0200). Run after generateSql and retriesSql.
 */
export const ORDERS_SQL = [`
INSERT INTO orders (chatbot_id, order_id, token, token_id, placed_at, currency, item_ids, item_quantities, item_values, status,
                    refund_ids, refund_ats, refund_amounts, gross_value, refunded_value, net_value, net_value_base, source, received_at, version)
SELECT chatbot_id, order_id, token, token_id, received_at, 'EUR', [concat('p', toString(h % 500))], [1], [value],
    if(h % 50 = 0, 'cancelled', 'paid') AS status, [], [], [], value, 0, if(status = 'paid', value, 0), if(status = 'paid', value, 0), 'api', received_at, h
FROM
(
    SELECT chatbot_id, if(event = 'purchase', order_num, concat('SHOP-', toString(event_id))) AS order_id, token, token_id, received_at,
        if(event = 'purchase', total_value, (cityHash64(event_id) % 20000) / 100) AS value, cityHash64(event_id, 'o') AS h
    FROM events
    WHERE NOT is_bot AND prev_copy_at = toDateTime64(0, 3, 'UTC')
      AND ((event = 'purchase' AND order_num != '') OR (event = 'go_to_cart' AND cityHash64(event_id, 's') % 100 < 3))
)`, `
INSERT INTO order_refunds (chatbot_id, order_id, refund_id, at, amount, source, received_at)
SELECT chatbot_id, order_id, concat(order_id, '-r'), placed_at + toIntervalDay(1), gross_value / 5, 'api', placed_at + toIntervalDay(1)
FROM orders WHERE version % 10 = 0`];

/** The data's clock, as the generating INSERT stamped inserted_at: its events lie in the days before it. */
export async function dataClock(engine: ClickHouseEngine): Promise<Date> {
  const [{ last }] = await engine.query<{ last: string }>('SELECT toString(min(inserted_at)) AS last FROM events');
  return new Date(parseClickhouseTime(last));
}

/**
 * The profile's data in `engine` (migrated): reused when `dir` already holds it (its parts then
 * merged, as a running store's are), else generated in `insertRows`-row inserts. Resolves with
 * the data's clock.
 */
export async function loadClickHouse(engine: ClickHouseEngine, p: StatsProfile, dir: string, insertRows: number, report: Report): Promise<Date> {
  const [{ rows: existing }] = await engine.query<{ rows: string }>('SELECT count() AS rows FROM events');
  if (Number(existing) > 0) {
    const now = await dataClock(engine);
    const [{ bots }] = await engine.query<{ bots: string }>('SELECT uniqExact(chatbot_id) AS bots FROM events');
    if (Number(bots) !== p.chatbots) throw new Error(`${dir} holds ${bots} chatbots, not the ${p.name} profile's ${p.chatbots}`);
    report.text(`ClickHouse: reusing ${existing} rows in ${dir} (generated up to ${now.toISOString()})`);
    await ensureOrders(engine, report);
    // Data reused is data a running store has had time to merge (the first run measured the
    // reads right after the load): the merges background threads do over minutes, done now.
    const started = performance.now();
    for (const table of VIEW_FED_TABLES) await engine.command(`OPTIMIZE TABLE ${table} FINAL`);
    report.text(`ClickHouse: the aggregates' parts merged in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return now;
  }
  const now = new Date();
  const started = performance.now();
  await engine.command(tokenMapSql(p));
  for (let first = 0; first < p.events; first += insertRows) {
    await engine.command(generateSql(p), { now: clickhouseTime(now), first, count: Math.min(insertRows, p.events - first) });
  }
  await engine.command(retriesSql(p), { now: clickhouseTime(now) });
  // Merged parts, as a long-running table has: a fresh insert leaves many small parts.
  await engine.command('OPTIMIZE TABLE events FINAL');
  await ensureOrders(engine, report);
  // Merges of other tables go on in the background: this run is the first after a bulk load.
  report.text(`ClickHouse: freshly generated data in ${insertRows.toLocaleString('en-US')}-row inserts: this run measures the reads right after a bulk load`);
  const [{ rows }] = await engine.query<{ rows: string }>('SELECT count() AS rows FROM events');
  report.text(`ClickHouse: ${rows} rows generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return now;
}

/** The shop's orders (ORDERS_SQL), generated once: a directory generated before they existed gains them. */
async function ensureOrders(engine: ClickHouseEngine, report: Report): Promise<void> {
  const [{ n }] = await engine.query<{ n: string }>('SELECT count() AS n FROM orders');
  if (Number(n) === 0) for (const sql of ORDERS_SQL) await engine.command(sql);
  const [{ orders, refunds }] = await engine.query<{ orders: string; refunds: string }>(
    'SELECT (SELECT uniqExact(order_id) FROM orders) AS orders, (SELECT count() FROM order_refunds) AS refunds');
  report.text(`ClickHouse: the shop's orders: ${orders} (${refunds} refunded in part)`);
}
