import { splitStatements } from './sql-split.js';
import { sqlFile } from './sql-files.js';
import type { ClickHouseEngine } from './types.js';

/**
 * Migration 0130's fill of the rows stored before it (their token ids), one batch of chatbots at
 * a time, as `migrate --backfill` runs it on one node (clickhouse/deploy/README.md, "Start-up
 * never rewrites a whole table"). The migration's own statements do it for the whole table at
 * once: one `GROUP BY` over every token of the store, one `transform` whose arrays hold all of
 * them, one mutation of every part. A batch holds about `batchRows` rows (a chatbot with more is
 * a batch alone), so what each step holds in memory and rewrites is bounded by the batch, and a
 * fill that stopped resumes at the first chatbot still without ids.
 */
export const BACKFILL_BATCH_ROWS = 10_000_000;

const CHATBOTS_SQL = sqlFile('backfill/token_id_chatbots');
const FILL = splitStatements(sqlFile('backfill/token_ids'));

export interface TokenIdBackfill {
  /** Batches filled, each its three statements. */
  batches: number;
  chatbots: number;
  /** Stored visitor rows that had no token id. */
  rows: number;
}

/** Chatbots grouped in order into batches of at most `maxRows` rows, a larger chatbot alone. */
export function chatbotBatches(chatbots: { chatbot_id: string; rows: number }[], maxRows: number): string[][] {
  const batches: string[][] = [];
  let rows = 0;
  for (const c of chatbots) {
    const last = batches.at(-1);
    if (last && rows + c.rows <= maxRows) {
      last.push(c.chatbot_id);
      rows += c.rows;
    } else {
      batches.push([c.chatbot_id]);
      rows = c.rows;
    }
  }
  return batches;
}

export async function backfillTokenIds(engine: ClickHouseEngine, opts: { batchRows?: number } = {}): Promise<TokenIdBackfill> {
  const chatbots = (await engine.query<{ chatbot_id: string; rows: string | number }>(CHATBOTS_SQL))
    .map((c) => ({ chatbot_id: c.chatbot_id, rows: Number(c.rows) }));
  const batches = chatbotBatches(chatbots, opts.batchRows ?? BACKFILL_BATCH_ROWS);
  for (const batch of batches) {
    for (const statement of FILL) await engine.command(statement, { chatbots: batch });
  }
  return { batches: batches.length, chatbots: chatbots.length, rows: chatbots.reduce((n, c) => n + c.rows, 0) };
}
