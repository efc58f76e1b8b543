/**
 * `npm run bench:views`: what each materialized view of the statistics engine (clickhouse/README.md,
 * "The statistics engine") costs an insert into `events_input_v2`, on the embedded engine.
 *
 * For each view, inserts are timed alternately with the view and without it (dropped, then created
 * again from its own DDL), on the same database:
 *   - fixed cost: the median time of a 1-row insert, with minus without — what every insert pays
 *     whatever its size (planning the view's query, its lookups, one part per target table);
 *   - cost per row: this process's CPU time (chdb runs in it) over --bulk inserts of --rows rows,
 *     with minus without, per event.
 * `events_input_v2_mv` is compared with a plain copy of events_input_v2's columns into `events` (without
 * it no row would reach `events`): its difference is the copy detection and the token-id lookup.
 * `token_hour_sets_mv`'s includes `token_day_sets_mv`, which is fed by it. The last row compares
 * every view with the plain copy alone.
 * Background merges run as in production; the order of each pair alternates between rounds so that
 * the table's growth does not favour one side. The differences are small against the insert itself:
 * read them over several rounds (--rounds), on an idle machine.
 * First, and alone with --queries-only (a minute): each view's own query over one --rows block
 * (scripts/view-query-costs.ts), the per-row work of each view without the noise of whole inserts.
 * Options: --rows <the embedded bus's batch, the consumer's largest insert from it> --bulk 3 --fixed 15 --rounds 2
 * --queries-only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createChdbEngine, runMigrations, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { EMBEDDED_BATCH_DEFAULTS } from '@chatlytics/bus';
import { createLogger } from '@chatlytics/core';
import { newEventId, type StoredEvent } from '@chatlytics/events';
import { chTime, generateEvents } from '@chatlytics/testkit';
import { machineSpeedLine } from './machine-speed.js';
import { materializedViews, plainCopySelectSql, plainCopyViewSql } from './materialized-views.js';
import { viewQueryCosts } from './view-query-costs.js';
import { median } from './median.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  const value = i >= 0 ? Number(args[i + 1]) : dflt;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
};
const ROWS = opt('rows', EMBEDDED_BATCH_DEFAULTS.maxBatchMessages);
const BULK = opt('bulk', 3);
const FIXED = opt('fixed', 15);
const ROUNDS = opt('rounds', 2);
const QUERIES_ONLY = args.includes('--queries-only');

const log = createLogger('warn', 'bench');

/** The testkit's journeys over a few chatbots, as templates: each insert gives them fresh ids and times. */
const templates: StoredEvent[] = [];
for (let seed = 1; templates.length < ROWS; seed++) {
  templates.push(...generateEvents({ seed, now: Date.UTC(2026, 5, 1), chatbotId: randomUUID(), otherChatbotIds: [randomUUID()], users: 2_000 }));
}
let next = 0;
/** Each template token's id, dense per chatbot as a writer gives them (the bitmaps see real ids). */
const tokenIds = new Map<string, number>();
const perChatbot = new Map<string, number>();
for (const e of templates) {
  const key = `${e.chatbot_id}\n${e.token}`;
  if (tokenIds.has(key)) continue;
  const n = (perChatbot.get(e.chatbot_id) ?? 0) + 1;
  perChatbot.set(e.chatbot_id, n);
  tokenIds.set(key, n);
}
/** n rows received now, each with its own new id (so copy detection finds none: the common case). */
function body(n: number): Buffer {
  const now = Date.now();
  const lines: string[] = [];
  const insertKey = now;
  for (let i = 0; i < n; i++) {
    const e = templates[next++ % templates.length];
    const at = now + Math.floor(i / 100);
    lines.push(JSON.stringify({ ...e, event_id: newEventId(at), received_at: chTime(at), token_id: tokenIds.get(`${e.chatbot_id}\n${e.token}`), insert_key: insertKey }));
  }
  return Buffer.from(lines.join('\n'));
}

interface Sample { fixedMs: number; cpuUsPerEvent: number }

async function sample(ch: ClickHouseEngine): Promise<Sample> {
  const times: number[] = [];
  for (let i = 0; i < FIXED; i++) {
    const data = body(1);
    const started = performance.now();
    await ch.insert('events_input_v2', data);
    times.push(performance.now() - started);
  }
  const bodies = Array.from({ length: BULK }, () => body(ROWS));
  const cpu = process.cpuUsage();
  for (const data of bodies) await ch.insert('events_input_v2', data);
  const used = process.cpuUsage(cpu);
  return { fixedMs: median(times), cpuUsPerEvent: (used.user + used.system) / (BULK * ROWS) };
}

async function main() {
  console.log(machineSpeedLine());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-views-'));
  const ch = await createChdbEngine({ path: dir, database: 'bench_views', log, connections: 1 });
  try {
    await runMigrations(ch);
    const views = await materializedViews(ch);
    const ddl = new Map(views.map((v) => [v.name, v.ddl]));
    const plainCopy = await plainCopyViewSql(ch);
    const inputDdl = ddl.get('events_input_v2_mv');
    if (!inputDdl) throw new Error('no events_input_v2_mv: migrations did not run');

    // Each case: how to take the view's work away, and how to give it back.
    type Case = { name: string; without: () => Promise<void>; restore: () => Promise<void> };
    const replaceInput = (sql: string) => async () => { await ch.command('DROP VIEW events_input_v2_mv'); await ch.command(sql); };
    const downstream = views.map((v) => v.name).filter((n) => n !== 'events_input_v2_mv');
    const cases: Case[] = [
      { name: 'events_input_v2_mv (vs a plain copy)', without: replaceInput(plainCopy), restore: replaceInput(inputDdl) },
      ...downstream.map((name) => ({ name, without: () => ch.command(`DROP VIEW ${name}`), restore: () => ch.command(ddl.get(name)!) })),
      {
        name: 'all views (vs a plain copy)',
        without: async () => { for (const n of downstream) await ch.command(`DROP VIEW ${n}`); await replaceInput(plainCopy)(); },
        restore: async () => { await replaceInput(inputDdl)(); for (const n of downstream) await ch.command(ddl.get(n)!); },
      },
    ];

    await sample(ch); // warm-up: the first inserts create the parts and load the code paths
    // events_input_v2_mv's query also copies every column: a plain copy's query shows that share.
    const queries = await viewQueryCosts(ch, body(ROWS), ROWS, 7, [{ name: '(a plain copy, for scale)', select: await plainCopySelectSql(ch) }]);
    const line = (name: string, ms: number, us: number) => console.log(`  ${name.padEnd(34)} ${ms.toFixed(1).padStart(8)} ms ${us.toFixed(2).padStart(7)} µs/event`);
    console.log(`each view's query alone over one ${ROWS.toLocaleString()}-row block (medians of 7):`);
    for (const q of [...queries.views, ...queries.references]) line(q.view, q.ms, q.cpuUsPerEvent);
    line('all views', queries.views.reduce((n, q) => n + q.ms, 0), queries.views.reduce((n, q) => n + q.cpuUsPerEvent, 0));
    if (QUERIES_ONLY) {
      console.log(JSON.stringify({ rows: ROWS, queries }));
      return;
    }
    console.log(`${ROUNDS} rounds; fixed cost from ${FIXED} 1-row inserts, cost per row from ${BULK} inserts of ${ROWS.toLocaleString()} rows`);
    console.log(`${'view'.padEnd(36)} ${'fixed ms/insert'.padStart(16)} ${'CPU µs/event'.padStart(13)}   (with / without, medians of the rounds)`);
    const result: Record<string, { fixedMs: number; cpuUsPerEvent: number }> = {};
    for (const c of cases) {
      const withView: Sample[] = [];
      const withoutView: Sample[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        if (round % 2 === 0) {
          withView.push(await sample(ch));
          await c.without();
          withoutView.push(await sample(ch));
          await c.restore();
        } else {
          await c.without();
          withoutView.push(await sample(ch));
          await c.restore();
          withView.push(await sample(ch));
        }
      }
      const w = { fixed: median(withView.map((s) => s.fixedMs)), cpu: median(withView.map((s) => s.cpuUsPerEvent)) };
      const wo = { fixed: median(withoutView.map((s) => s.fixedMs)), cpu: median(withoutView.map((s) => s.cpuUsPerEvent)) };
      result[c.name] = { fixedMs: +(w.fixed - wo.fixed).toFixed(1), cpuUsPerEvent: +(w.cpu - wo.cpu).toFixed(2) };
      console.log(`${c.name.padEnd(36)} ${(w.fixed - wo.fixed).toFixed(1).padStart(16)} ${(w.cpu - wo.cpu).toFixed(2).padStart(13)}   ` +
        `(${w.fixed.toFixed(1)} / ${wo.fixed.toFixed(1)} ms, ${w.cpu.toFixed(2)} / ${wo.cpu.toFixed(2)} µs)`);
    }
    console.log(JSON.stringify({ rows: ROWS, bulk: BULK, fixed: FIXED, rounds: ROUNDS, queries, views: result }));
  } finally {
    await ch.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
