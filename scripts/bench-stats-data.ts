/**
 * The data of bench-stats.ts: two profiles, generated inside the embedded engine.
 *
 *   default:  10M events over 90 days, 100 chatbots (~100k events, ~30k tokens each; ~33k
 *             events of a chatbot in the 30-day window).
 *   big-shop: 1 chatbot, 10M events inside the 30-day window, 2M tokens.
 *
 * Both add 1 % retried beacons (same row, received 1 ms to 2 days later). Rows are generated
 * into a staging table and then inserted into `events` in received_at order, as the pipeline
 * inserts them, so that the rollups' materialized views see each event after its predecessors.
 */
import type { ClickHouseEngine } from '@chatlytics/clickhouse';

export interface BenchProfile {
  name: 'default' | 'big-shop';
  events: number;
  chatbots: number;
  /** Events are spread over the `days` before the data's clock. */
  days: number;
  tokensPerChatbot: number;
}

export function benchProfile(name: string, events: number | undefined): BenchProfile {
  if (name === 'big-shop') return { name, events: events ?? 10_000_000, chatbots: 1, days: 30, tokensPerChatbot: 2_000_000 };
  if (name === 'default') return { name, events: events ?? 10_000_000, chatbots: 100, days: 90, tokensPerChatbot: 30_000 };
  throw new Error(`unknown profile ${JSON.stringify(name)} (default, big-shop)`);
}

export const botId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/**
 * One row per number: chatbot = n mod chatbots; tokens ending in 0, 1 or x for the A/B
 * groups; event types in realistic proportions; order numbers from a pool so that orders
 * repeat; 5 % of purchases in an unknown currency (NULL base value). Inside the last `days`
 * (the big shop's first millisecond stays inside its 30-day window).
 */
const generate = (p: BenchProfile) => `
INSERT INTO bench_source (event_id, event, token, chatbot_id, received_at, ab_test, ab_group, popup_version, open_way,
                          order_num, currency, total_value, total_value_base, items, url, user_agent, client_hash, data, inserted_at)
SELECT
    reinterpretAsUUID(reverse(unhex(lpad(hex(n), 32, '0')))) AS event_id,
    multiIf(k < 30, 'visitor', k < 50, 'popup_displayed', k < 55, 'popup_opened', k < 65, 'bot_open',
            k < 72, 'convo_started', k < 87, 'message_sent', k < 91, 'click_through', k < 93, 'message_like',
            k < 94, 'message_dislike', k < 97, 'purchase', 'go_to_cart') AS event,
    concat('tok', toString(u), ['0', '1', 'x'][u % 3 + 1]) AS token,
    concat('00000000-0000-4000-8000-', leftPad(toString(n % ${p.chatbots}), 12, '0')) AS chatbot_id,
    {now:DateTime64(3, 'UTC')} - toIntervalMillisecond(cityHash64(n, 't') % (${p.days} * 86400000 - 1)) AS received_at,
    (n % ${p.chatbots}) % 2 = 0 AS ab_test,
    if(ab_test AND u % 3 < 2, ['control', 'test'][u % 3 + 1], NULL) AS ab_group,
    if(event IN ('popup_displayed', 'popup_opened'), ['v1', 'v2', 'v3', ''][h % 4 + 1], '') AS popup_version,
    if(event = 'convo_started', ['popup', 'chat_button', ''][h % 3 + 1], '') AS open_way,
    if(event = 'purchase' AND h % 4 != 0, concat('ORD-', toString(h % 400000)), '') AS order_num,
    '' AS currency,
    if(event = 'purchase', (h % 20000) / 100, 0) AS total_value,
    if(event = 'purchase', if(h % 20 = 0, NULL, (h % 20000) / 100), 0) AS total_value_base,
    [] AS items, '' AS url, '' AS user_agent, '' AS client_hash, '{}' AS data,
    {now:DateTime64(3, 'UTC')} AS inserted_at
FROM (SELECT number AS n, cityHash64(number, 'k') % 100 AS k, cityHash64(number, 'u') % ${p.tokensPerChatbot} AS u, cityHash64(number, 'h') AS h
      FROM numbers({events:UInt64}))`;

/** Retried beacons: 1 % of events again, 1 ms to 2 days later. */
const RETRIES = `
INSERT INTO bench_source
SELECT * REPLACE (received_at + toIntervalMillisecond(cityHash64(event_id) % 172800000 + 1) AS received_at)
FROM bench_source WHERE cityHash64(event_id, 'r') % 100 = 0`;

/**
 * Generates the profile's rows into `events` (through the rollups' views). `now` is the data's
 * clock: every generated row has inserted_at = now, which a reused data directory reads back.
 */
export async function generateBenchEvents(engine: ClickHouseEngine, p: BenchProfile, now: Date): Promise<void> {
  const chNow = now.toISOString().replace('T', ' ').replace('Z', '');
  await engine.command('DROP TABLE IF EXISTS bench_source');
  // No materialized view hangs off the staging table: generation order does not matter there.
  await engine.command('CREATE TABLE bench_source AS events ENGINE = MergeTree ORDER BY received_at');
  await engine.command(generate(p), { now: chNow, events: p.events });
  await engine.command(RETRIES);
  await engine.command('INSERT INTO events SELECT * FROM bench_source ORDER BY received_at SETTINGS max_insert_threads = 1');
  await engine.command('DROP TABLE bench_source');
}

/** Merged parts, as a long-running table has: a fresh insert leaves many small parts. */
export async function optimizeBenchTables(engine: ClickHouseEngine): Promise<void> {
  for (const table of ['events', 'stats_events', 'stats_hourly_tokens', 'stats_hourly_counts', 'stats_purchases', 'stats_late_copies']) {
    await engine.command(`OPTIMIZE TABLE ${table} FINAL`);
  }
}
