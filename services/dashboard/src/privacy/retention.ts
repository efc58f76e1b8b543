import fp from 'fastify-plugin';
import type { FastifyBaseLogger } from 'fastify';
import { and, eq, lt } from 'drizzle-orm';
import { applyRetention, purgeDeletedRows, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { DAY_MS } from '@chatlytics/core';
import { chatbots, conversations, type Database, type Postgres } from '@chatlytics/postgres';
import { every } from '../jobs/every.js';

/** The advisory lock of the retention run: one at a time across every dashboard on the database. */
export const RETENTION_LOCK_KEY = 4_242_017_060;
/** Between runs: a row is deleted at most a day and this much after it passed its chatbot's limit. */
export const DEFAULT_RETENTION_INTERVAL_MS = 60 * 60_000;

/** The first instant kept: UTC midnight `days` whole days before today's. */
export const retentionCutoff = (now: Date, days: number) => Math.floor(now.getTime() / DAY_MS) * DAY_MS - days * DAY_MS;

export interface RetentionDeps {
  db: Database;
  clickhouse: ClickHouseEngine;
  cluster?: string;
  clock: () => Date;
}

/**
 * Every chatbot's raw rows older than its `retention_days` (README.md, "Personal data"):
 * conversations whose last change (updated_at) is before the horizon, with their messages and
 * analyses, and the ClickHouse rows received before it (applyRetention). Per chatbot, so one
 * failing chatbot does not hold back the others' deletions (the error is rethrown at the end).
 * Then the rows erasures masked in `events` leave the disk (purgeDeletedRows): once per run, so
 * the erasures of an interval share one rewrite of the parts.
 */
export async function runRetention(deps: RetentionDeps): Promise<{ chatbots: number; conversations: number; purgedParts: number }> {
  const all = await deps.db.select({ id: chatbots.id, days: chatbots.retentionDays }).from(chatbots);
  let removed = 0;
  let failure: unknown;
  for (const bot of all) {
    const cutoff = retentionCutoff(deps.clock(), bot.days);
    try {
      const gone = await deps.db.delete(conversations)
        .where(and(eq(conversations.chatbotId, bot.id), lt(conversations.updatedAt, new Date(cutoff)))).returning({ id: conversations.id });
      removed += gone.length;
      await applyRetention(deps.clickhouse, bot.id, cutoff, { cluster: deps.cluster });
    } catch (err) {
      failure ??= err;
    }
  }
  let purgedParts = 0;
  try {
    purgedParts = await purgeDeletedRows(deps.clickhouse, { cluster: deps.cluster });
  } catch (err) {
    failure ??= err;
  }
  if (failure) throw failure;
  return { chatbots: all.length, conversations: removed, purgedParts };
}

export interface RetentionLoopOptions extends RetentionDeps {
  postgres: Pick<Postgres, 'exclusive'>;
  log: FastifyBaseLogger;
  /** 0: never runs by itself (tests call runRetention). */
  intervalMs: number;
}

/** The retention run as part of the dashboard app: at start-up, then every interval, under the lock. */
export const retentionLoopPlugin = fp<RetentionLoopOptions>(async (app, opts) => {
  const loop = every({
    // Not at once: a process that starts and stops again (a CLI command, a test) deletes nothing.
    intervalMs: opts.intervalMs, firstMs: opts.intervalMs > 0 ? 5 * 60_000 : 0,
    run: () => opts.postgres.exclusive(RETENTION_LOCK_KEY, () => runRetention(opts)),
    onError: (err) => opts.log.warn({ err }, 'retention run failed; the next run tries again'),
  });
  app.addHook('onReady', async () => loop.start());
  app.addHook('onClose', async () => loop.stop());
});
