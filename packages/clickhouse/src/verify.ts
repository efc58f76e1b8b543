import { sqlFile } from './sql-files.js';
import { splitStatements } from './sql-split.js';
import { clickhouseTime } from './time.js';
import type { ClickHouseEngine } from './types.js';
import { recomputeSql, VIEW_FED_TABLES } from './views.js';
import { deleteOnShards, storeCluster, storedChatbots } from './cluster-store.js';

/**
 * `npm run cli -- verify`: every aggregate `events` feeds, and the token ids, computed again from
 * the rows of `events` and compared with what is stored (clickhouse/README.md, "Verifying and
 * repairing"); `--repair` recomputes each chatbot's day that differs (repairDays).
 */
export interface VerifyScope {
  /** One chatbot; all when absent. */
  chatbotId?: string;
  /** [from, to) in ms; all time when absent. */
  from?: number;
  to?: number;
}

export interface Difference {
  /** The aggregate (or token-id rule) that differs. */
  check: string;
  chatbot_id: string;
  /** The UTC day (YYYY-MM-DD) of the difference; '1970-01-01' for a token-id difference. */
  day: string;
  /** What differs within it: an hour and a kind, an order number, a token, an id. */
  key: string;
  stored: string;
  expected: string;
}

const CHECKS = ['verify/event_hour_counts', 'verify/token_sets', 'verify/narrow_tables', 'verify/order_first_purchases', 'verify/token_ids'] as const;
/** The token-id rule's checks (verify/token_ids.sql): not a day's aggregates, repaired by repairTokenIds. */
export const TOKEN_ID_CHECKS = new Set(['rows_without_token_id', 'id_names_several_tokens', 'token_has_several_ids', 'token_id_not_in_token_ids']);

const params = (scope: VerifyScope) => ({
  chatbot_id: scope.chatbotId ?? '',
  from: clickhouseTime(scope.from ?? 0),
  // A day past the last stored row when open-ended: rows are never in the future by more.
  to: clickhouseTime(scope.to ?? Date.now() + 86_400_000),
});

/**
 * The aggregates of anonymous integers a chatbot keeps past its retention horizon (README.md,
 * "Personal data"): their days before the horizon have no rows in events to compare with.
 */
export const KEPT_PAST_RETENTION = new Set(['token_hour_sets', 'token_day_sets', 'event_hour_counts']);

/**
 * Every difference in the scope, in check order (on a cluster, per chatbot: each chatbot's checks
 * read its own shard, where its rows and aggregates are, instead of every shard's rows at once).
 */
export async function verifyAggregates(engine: ClickHouseEngine, scope: VerifyScope = {}): Promise<Difference[]> {
  const out: Difference[] = [];
  if (scope.chatbotId === undefined && await storeCluster(engine)) {
    for (const chatbotId of await storedChatbots(engine, VIEW_FED_TABLES)) {
      if (chatbotId !== '') out.push(...await verifyAggregates(engine, { ...scope, chatbotId }));
    }
    return out;
  }
  for (const name of CHECKS) {
    out.push(...await engine.query<Difference>(sqlFile(name), params(scope)));
  }
  const cutoffs = new Map((await engine.query<{ chatbot_id: string; cutoff: string }>(
    'SELECT chatbot_id, toString(max(cutoff)) AS cutoff FROM retention_cutoffs GROUP BY chatbot_id')).map((r) => [r.chatbot_id, r.cutoff]));
  if (cutoffs.size === 0) return out;
  return out.filter((d) => !(KEPT_PAST_RETENTION.has(d.check) && d.day < (cutoffs.get(d.chatbot_id) ?? '')));
}

/** The chatbot days a repair recomputes: those of the differences in the day-bound aggregates. */
export function daysToRepair(differences: readonly Difference[]): { chatbotId: string; day: string }[] {
  const days = new Map<string, { chatbotId: string; day: string }>();
  for (const d of differences) {
    if (TOKEN_ID_CHECKS.has(d.check)) continue;
    days.set(`${d.chatbot_id}\n${d.day}`, { chatbotId: d.chatbot_id, day: d.day });
  }
  return [...days.values()];
}

/** Nothing of the chatbot's day was stored in the last `quietMs`: no insert can race a repair of it. */
async function quiet(engine: ClickHouseEngine, chatbotId: string, from: string, to: string, quietMs: number): Promise<boolean> {
  const [{ recent }] = await engine.query<{ recent: string | number }>(
    'SELECT count() AS recent FROM events WHERE chatbot_id = {chatbot_id:String} AND received_at >= {from:DateTime64(3, \'UTC\')} AND received_at < {to:DateTime64(3, \'UTC\')} AND inserted_at > now64(3) - toIntervalMillisecond({quiet:UInt64})',
    { chatbot_id: chatbotId, from, to, quiet: quietMs },
  );
  return Number(recent) === 0;
}

export interface RepairResult {
  repaired: { chatbotId: string; day: string }[];
  /** Days with rows stored in the last minutes: a repair could race those inserts; run it again later. */
  busy: { chatbotId: string; day: string }[];
}

/**
 * Each chatbot's day computed again from `events`: its aggregate rows deleted (verify/clear_day.sql;
 * on a cluster from the `_local` tables of every shard),
 * then each view's own SELECT run over the day's rows (views.ts, recomputeSql). Unless `quietMs` is 0
 * (nothing else writes: the consumer repairing before it starts), a day that received rows in
 * the last `quietMs` is left alone and reported busy.
 */
export async function repairDays(engine: ClickHouseEngine, days: readonly { chatbotId: string; day: string }[], quietMs = 120_000): Promise<RepairResult> {
  // On a cluster the day's aggregate rows are deleted on the shards (a Distributed table takes no
  // DELETE); the recomputed rows go through the Distributed tables to the chatbot's shard.
  const cluster = await storeCluster(engine);
  const clear = splitStatements(sqlFile('verify/clear_day')).map((sql) => deleteOnShards(sql, cluster));
  const statements = [...clear, ...recomputeSql(sqlFile('verify/scope_events')).map((r) => r.sql)];
  const result: RepairResult = { repaired: [], busy: [] };
  for (const d of days) {
    const start = Date.parse(`${d.day}T00:00:00Z`);
    const p = { chatbot_id: d.chatbotId, from: clickhouseTime(start), to: clickhouseTime(start + 86_400_000) };
    if (quietMs > 0 && !await quiet(engine, d.chatbotId, p.from, p.to, quietMs)) {
      result.busy.push(d);
      continue;
    }
    for (const sql of statements) await engine.command(sql, p);
    result.repaired.push(d);
  }
  return result;
}
