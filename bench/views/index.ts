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
 * (query-costs.ts), the per-row work of each view without the noise of whole inserts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createChdbEngine, runMigrations, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { EMBEDDED_BATCH_DEFAULTS } from '@chatlytics/bus';
import { newEventId, type StoredEvent } from '@chatlytics/events';
import { chTime, generateEvents } from '@chatlytics/testkit';
import { opt, type Values } from '../lib/args.js';
import { defineBench } from '../lib/bench.js';
import { alternate } from '../lib/pairs.js';
import { benchLogger, type Report } from '../lib/report.js';
import { median } from '../lib/stats.js';
import { materializedViews, plainCopySelectSql, plainCopyViewSql } from './materialized-views.js';
import { viewQueryCosts } from './query-costs.js';

const count = (help: string, dflt: number) => opt.number(dflt, help, { min: 1, integer: true });
const OPTIONS = {
  rows: count('rows per bulk insert and of the block each view\'s query reads (the embedded bus\'s batch, the consumer\'s largest insert from it)', EMBEDDED_BATCH_DEFAULTS.maxBatchMessages),
  bulk: count('bulk inserts per sample (the cost per row)', 3),
  fixed: count('1-row inserts per sample (the fixed cost)', 15),
  rounds: count('rounds with and without each view, alternately', 2),
  'queries-only': opt.flag('only each view\'s query over one block (a minute)'),
};
type Options = Values<typeof OPTIONS>;

export default defineBench({ summary: 'What each materialized view costs an insert into events_input_v2 (embedded engine): its query alone over one block, then inserts with and without it, alternately.', options: OPTIONS, run: main });

const log = benchLogger('warn', 'bench');

/** A source of insert bodies: the testkit's journeys over a few chatbots as templates, given fresh ids and times by each insert. */
function rowSource(rows: number): (n: number) => Buffer {
  const templates: StoredEvent[] = [];
  for (let seed = 1; templates.length < rows; seed++) {
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
  return (n) => {
    const now = Date.now();
    const lines: string[] = [];
    const insertKey = now;
    for (let i = 0; i < n; i++) {
      const e = templates[next++ % templates.length];
      const at = now + Math.floor(i / 100);
      lines.push(JSON.stringify({ ...e, event_id: newEventId(at), received_at: chTime(at), token_id: tokenIds.get(`${e.chatbot_id}\n${e.token}`), insert_key: insertKey }));
    }
    return Buffer.from(lines.join('\n'));
  };
}

interface Sample { fixedMs: number; cpuUsPerEvent: number }

async function sample(ch: ClickHouseEngine, o: Options, body: (n: number) => Buffer): Promise<Sample> {
  const times: number[] = [];
  for (let i = 0; i < o.fixed; i++) {
    const data = body(1);
    const started = performance.now();
    await ch.insert('events_input_v2', data);
    times.push(performance.now() - started);
  }
  const bodies = Array.from({ length: o.bulk }, () => body(o.rows));
  const cpu = process.cpuUsage();
  for (const data of bodies) await ch.insert('events_input_v2', data);
  const used = process.cpuUsage(cpu);
  return { fixedMs: median(times), cpuUsPerEvent: (used.user + used.system) / (o.bulk * o.rows) };
}

async function main(o: Options, report: Report) {
  const { rows: ROWS, fixed: FIXED, bulk: BULK, rounds: ROUNDS } = o;
  const body = rowSource(ROWS);
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

    const take = () => sample(ch, o, body);
    await take(); // warm-up: the first inserts create the parts and load the code paths
    // events_input_v2_mv's query also copies every column: a plain copy's query shows that share.
    const queries = await viewQueryCosts(ch, body(ROWS), ROWS, 7, [{ name: '(a plain copy, for scale)', select: await plainCopySelectSql(ch) }]);
    const line = (name: string, ms: number, us: number) => {
      report.text(`  ${name.padEnd(34)} ${ms.toFixed(1).padStart(8)} ms ${us.toFixed(2).padStart(7)} µs/event`);
      report.figures({ part: 'query alone', view: name, rows: ROWS, reps: 7 }, [['query time', ms, 'ms'], ['query CPU per event', us, 'µs']]);
    };
    report.text(`each view's query alone over one ${ROWS.toLocaleString()}-row block (medians of 7):`);
    for (const q of [...queries.views, ...queries.references]) line(q.view, q.ms, q.cpuUsPerEvent);
    line('all views', queries.views.reduce((n, q) => n + q.ms, 0), queries.views.reduce((n, q) => n + q.cpuUsPerEvent, 0));
    if (o['queries-only']) return;
    report.text(`${ROUNDS} rounds; fixed cost from ${FIXED} 1-row inserts, cost per row from ${BULK} inserts of ${ROWS.toLocaleString()} rows`,
      `${'view'.padEnd(36)} ${'fixed ms/insert'.padStart(16)} ${'CPU µs/event'.padStart(13)}   (with / without, medians of the rounds)`);
    for (const c of cases) {
      // The order of each pair flips every round, so that the table's growth does not favour one side.
      const samples = await alternate(ROUNDS, {
        with: () => take(),
        without: async () => {
          await c.without();
          const s = await take();
          await c.restore();
          return s;
        },
      }, { flip: true });
      const w = { fixed: median(samples.with.map((s) => s.fixedMs)), cpu: median(samples.with.map((s) => s.cpuUsPerEvent)) };
      const wo = { fixed: median(samples.without.map((s) => s.fixedMs)), cpu: median(samples.without.map((s) => s.cpuUsPerEvent)) };
      report.text(`${c.name.padEnd(36)} ${(w.fixed - wo.fixed).toFixed(1).padStart(16)} ${(w.cpu - wo.cpu).toFixed(2).padStart(13)}   ` +
        `(${w.fixed.toFixed(1)} / ${wo.fixed.toFixed(1)} ms, ${w.cpu.toFixed(2)} / ${wo.cpu.toFixed(2)} µs)`);
      const context = { part: 'insert, with minus without', view: c.name, rows: ROWS, bulk: BULK, fixed: FIXED, rounds: ROUNDS };
      report.figure('fixed cost per insert', w.fixed - wo.fixed, 'ms', { ...context, with: +w.fixed.toFixed(2), without: +wo.fixed.toFixed(2) });
      report.figure('CPU per event', w.cpu - wo.cpu, 'µs', { ...context, with: +w.cpu.toFixed(3), without: +wo.cpu.toFixed(3) });
    }
  } finally {
    await ch.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
