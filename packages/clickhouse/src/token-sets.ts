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
}

export interface SealRun {
  /** (chatbot, hour) pairs sealed or resealed by this run. */
  hours: number;
  chatbots: number;
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
 * One run of the sealer (migration 0050, clickhouse/README.md "Sealed hours"): finds the
 * complete hours whose sealed row is missing or stale, gives their tokens ids, and seals them,
 * one chatbot at a time. Must not run twice at once against one ClickHouse database (token ids
 * are allocated as max + 1): the dashboard runs it under a PostgreSQL advisory lock. A run that
 * stops half-way leaves nothing wrong: ids without sealed hours are harmless, and a hour is
 * used only once its sealed row matches its rows.
 */
export async function sealHours(engine: ClickHouseEngine, opts: SealOptions): Promise<SealRun> {
  const started = performance.now();
  const due = await engine.query<{ chatbot_id: string; hour: number | string }>(sqlFile('seal/hours_to_seal'), {
    before: clickhouseTime(Math.floor(opts.before.getTime() / 1000 / HOUR_S) * HOUR_S * 1000),
    lookback_s: opts.lookbackSeconds,
    max_hours: opts.maxHours ?? DEFAULT_MAX_HOURS,
    min_rows: opts.minRows ?? MIN_SEAL_ROWS,
  });
  const byChatbot = new Map<string, number[]>();
  for (const r of due) {
    const hours = byChatbot.get(r.chatbot_id) ?? [];
    hours.push(Number(r.hour));
    byChatbot.set(r.chatbot_id, hours);
  }
  for (const [chatbotId, hours] of byChatbot) {
    const params = {
      chatbot_id: chatbotId,
      hours,
      lo: clickhouseTime(Math.min(...hours) * 1000),
      hi: clickhouseTime((Math.max(...hours) + HOUR_S) * 1000),
      lookback_s: opts.lookbackSeconds,
    };
    // Ids first: the seal joins them, and marks an hour unsealable if a row's token has none.
    await engine.command(sqlFile('seal/assign_token_ids'), params);
    await engine.command(sqlFile('seal/seal_hours'), params);
  }
  return { hours: due.length, chatbots: byChatbot.size, ms: Math.round(performance.now() - started) };
}

/** Forgets every sealed hour (rollups:rebuild, after prev_copy_at changed): the sealer seals them again. */
export async function unsealAll(engine: ClickHouseEngine): Promise<void> {
  await engine.command('TRUNCATE TABLE token_hour_sets');
}
