import { sqlFile } from './sql-files.js';
import type { ClickHouseEngine } from './types.js';
import { clickhouseTime } from './time.js';

export interface SealOptions {
  /** Hours that start before this are complete enough to seal; later rows only make a reseal. */
  before: Date;
  /** The statistics' retry look-back (services/dashboard/src/stats/retry-lookback.ts), in seconds. */
  lookbackSeconds: number;
  /** At most this many (chatbot, hour) pairs per run, most recent first: bounds one run's work. */
  maxHours?: number;
  /** Hours with fewer rows are not sealed (default MIN_SEAL_ROWS). */
  minRows?: number;
  /** How long an insert may take to become visible (default ARRIVAL_MARGIN_MS); tests that insert nothing meanwhile use 0. */
  arrivalMarginMs?: number;
}

export interface SealRun {
  /** (chatbot, hour) pairs sealed or resealed by this run. */
  hours: number;
  /** Of those, sealed again because a row arriving later changed what a sealed purchase knew (its order's first row, its token's last conversation). */
  rechecked: number;
  chatbots: number;
  /** The chatbots with hours sealed or resealed by this run. */
  chatbotIds: string[];
  ms: number;
}

const HOUR_S = 3600;
const DEFAULT_MAX_HOURS = 5000;
/**
 * A sealed hour pays off only where reading its rows costs more than finding and merging its
 * sets: on the bench's 100-chatbot profile (~46 rows an hour) every hour sealed made engagement
 * 13.5 → 91 ms p50; the big shop's hours hold ~14k rows. Below this, hours are read as rows.
 */
export const MIN_SEAL_ROWS = 1000;
/**
 * A purchase or conversation row is stamped with its arrival (sealed_hour_arrivals.arrived_at)
 * while its INSERT runs and becomes visible when the INSERT ends: each check re-reads this far before its
 * start, so a row visible to no earlier seal is always in a later check (rollups.ts assumes a
 * minute for the same; five leave room).
 */
export const ARRIVAL_MARGIN_MS = 300_000;

/**
 * One run of the sealer (migration 0050, clickhouse/README.md "Sealed hours"): finds the
 * complete hours whose sealed row is missing or stale, gives their tokens ids, and seals them,
 * one chatbot at a time. Must not run twice at once against one ClickHouse database (token ids
 * are allocated as max + 1): the dashboard runs it under a PostgreSQL advisory lock. A run that
 * stops half-way leaves nothing wrong: ids without sealed hours are harmless, and a hour is
 * used only once its sealed row matches its rows.
 */
export async function sealHours(engine: ClickHouseEngine, opts: SealOptions): Promise<SealRun> {
  const started = performance.now();
  // ClickHouse's clock, as arrived_at's: what this run checks, later runs need not check again.
  // The previous check's end, read in the same query.
  const [{ checked, since }] = await engine.query<{ checked: string; since: string }>(
    "SELECT toString(now64(3, 'UTC') - toIntervalMillisecond({margin:UInt32})) AS checked, toString(max(checked_until)) AS since FROM sealed_purchases_checked",
    { margin: opts.arrivalMarginMs ?? ARRIVAL_MARGIN_MS });
  const due = await engine.query<{ chatbot_id: string; hour: number | string }>(sqlFile('seal/hours_to_seal'), {
    before: clickhouseTime(Math.floor(opts.before.getTime() / 1000 / HOUR_S) * HOUR_S * 1000),
    lookback_s: opts.lookbackSeconds,
    max_hours: opts.maxHours ?? DEFAULT_MAX_HOURS,
    min_rows: opts.minRows ?? MIN_SEAL_ROWS,
  });
  // Sealed purchases an earlier row of their order or a conversation of their token before them
  // arrived for since the last check: their hours are sealed again (the statistics look those
  // rows up themselves meanwhile), whatever maxHours says.
  const recheck = await engine.query<{ chatbot_id: string; hour: number | string }>(sqlFile('seal/purchases_to_recheck'), { since });
  const byChatbot = new Map<string, Set<number>>();
  for (const r of [...due, ...recheck]) {
    const hours = byChatbot.get(r.chatbot_id) ?? new Set<number>();
    hours.add(Number(r.hour));
    byChatbot.set(r.chatbot_id, hours);
  }
  // The index first: a chatbot whose sealed hours hold ids it lost is read as rows until then.
  await indexTokenIds(engine, '');
  let sealed = 0;
  for (const [chatbotId, set] of byChatbot) {
    const hours = [...set];
    sealed += hours.length;
    const params = {
      chatbot_id: chatbotId,
      hours,
      lo: clickhouseTime(Math.min(...hours) * 1000),
      hi: clickhouseTime((Math.max(...hours) + HOUR_S) * 1000),
      lookback_s: opts.lookbackSeconds,
    };
    // Ids first: the seal joins them, and marks an hour unsealable if a row's token has none.
    await engine.command(sqlFile('seal/assign_token_ids'), params);
    // Indexed before sealed: a statistic uses a sealed hour only once the index holds its ids.
    await indexTokenIds(engine, chatbotId);
    await engine.command(sqlFile('seal/seal_hours'), params);
  }
  // Only once every hour above is sealed again: a run that fails before this is repeated whole.
  await engine.command("INSERT INTO sealed_purchases_checked (checked_until) VALUES ({checked:DateTime64(3, 'UTC')})", { checked });
  return { hours: sealed, rechecked: recheck.length, chatbots: byChatbot.size, chatbotIds: [...byChatbot.keys()], ms: Math.round(performance.now() - started) };
}

/**
 * Puts the token ids the index lacks into token_id_index (migration 0080), then marks them
 * indexed: for `chatbotId`, or ('') for every chatbot whose sealed hours hold ids beyond its mark.
 */
async function indexTokenIds(engine: ClickHouseEngine, chatbotId: string): Promise<void> {
  const lagging = await engine.query<{ chatbot_id: string; assigned: number; indexed: number }>(sqlFile('seal/token_ids_to_index'), { chatbot_id: chatbotId });
  for (const r of lagging) {
    const params = { chatbot_id: r.chatbot_id, indexed: Number(r.indexed), assigned: Number(r.assigned) };
    await engine.command(sqlFile('seal/index_token_ids'), params);
    await engine.command(sqlFile('seal/mark_token_ids_indexed'), params);
  }
}

/**
 * Forgets every sealed hour (rollups:rebuild, after prev_copy_at changed), the id index (it
 * is rebuilt from token_ids, so a damaged one is repaired too) and the kept runs (migration
 * 0090): the sealer fills the first two again, the statistics keep runs again as they read them.
 */
export async function unsealAll(engine: ClickHouseEngine): Promise<void> {
  await engine.command('TRUNCATE TABLE token_hour_sets');
  await engine.command('TRUNCATE TABLE token_id_index');
  await engine.command('TRUNCATE TABLE sealed_runs');
  await engine.command('TRUNCATE TABLE sealed_run_purchases');
}
