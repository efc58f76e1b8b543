/**
 * `npm run bench -- backfill`: migration 0130's fill of stored rows' token ids on one node, as
 * the migration's whole-table statements against `migrate --backfill`'s batches of chatbots
 * (clickhouse/deploy/README.md, "Start-up never rewrites a whole table"). A store at migration
 * 0120 is built once; then, alternately, each form fills a copy of it in a process of its own
 * (child.ts): its time and its peak RSS (the embedded engine's memory is the process's).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createChdbEngine, MIGRATIONS_DIR, runMigrations } from '@chatlytics/clickhouse';
import { opt } from '../lib/args.js';
import { defineBench } from '../lib/bench.js';
import { benchLogger } from '../lib/report.js';

interface Fill { mode: string; fillMs: number; batches: number; peakRssMb: number; without: string; tokens: string; ids: string }

export default defineBench({
  summary: 'Migration 0130\'s fill of stored rows\' token ids: the whole-table statements against the batches of chatbots, alternately, time and peak RSS.',
  options: {
    rows: opt.number(4_000_000, 'stored visitor rows', { min: 1, integer: true }),
    chatbots: opt.number(40, 'chatbots the rows belong to', { min: 1, integer: true }),
    'batch-rows': opt.number(500_000, 'rows per batch of chatbots', { min: 1, integer: true }),
    runs: opt.number(2, 'runs of each form, alternated', { min: 1, integer: true }),
  },
  async run(o, report) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'chatlytics-bench-backfill-'));
    try {
      const base = path.join(root, 'base');
      const before = path.join(root, 'migrations');
      fs.mkdirSync(before);
      for (const f of fs.readdirSync(MIGRATIONS_DIR).filter((f) => f < '0130')) fs.cpSync(path.join(MIGRATIONS_DIR, f), path.join(before, f));
      const engine = await createChdbEngine({ path: base, database: 'fill', log: benchLogger('warn') });
      await runMigrations(engine, before);
      // About 8 rows per token, each token's rows spread over the chatbots and 60 days.
      await engine.command(`INSERT INTO events (event_id, event, token, chatbot_id, received_at, is_bot)
        SELECT generateUUIDv7(), 'visitor', concat('tok-', toString(cityHash64(number) % {tokens:UInt64})),
          concat('bot-', toString(number % {chatbots:UInt64})), toDateTime64('2026-09-01 00:00:00', 3, 'UTC') + toIntervalSecond(number % 5184000), false
        FROM numbers({rows:UInt64})`, { rows: o.rows, chatbots: o.chatbots, tokens: Math.max(1, Math.round(o.rows / 8)) });
      await engine.close();
      const fills: Fill[] = [];
      for (let run = 0; run < o.runs; run++) {
        for (const mode of ['whole', 'batched']) {
          const dir = path.join(root, 'run');
          fs.rmSync(dir, { recursive: true, force: true });
          fs.cpSync(base, dir, { recursive: true });
          const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'child.ts'), mode, dir, String(o['batch-rows'])], { encoding: 'utf8' });
          const fill = JSON.parse(out.trim().split('\n').at(-1)!) as Fill;
          if (fill.without !== '0' || fill.ids !== fill.tokens) throw new Error(`${mode}: ${fill.without} rows without an id, ${fill.ids} ids for ${fill.tokens} tokens`);
          fills.push(fill);
          report.figures({ mode, run, rows: o.rows, chatbots: o.chatbots, batches: fill.batches }, [['fill time', Math.round(fill.fillMs), 'ms'], ['peak RSS', Math.round(fill.peakRssMb), 'MB']]);
        }
      }
      const range = (mode: string, pick: (f: Fill) => number) => {
        const v = fills.filter((f) => f.mode === mode).map(pick);
        return `${Math.round(Math.min(...v)).toLocaleString('en')}–${Math.round(Math.max(...v)).toLocaleString('en')}`;
      };
      report.text(
        `${o.rows.toLocaleString('en')} rows, ${fills[0].tokens} (chatbot, token) pairs, ${o.chatbots} chatbots; batches of ${o['batch-rows'].toLocaleString('en')} rows: ${fills.find((f) => f.mode === 'batched')!.batches}`,
        '| form | fill ms | peak RSS MB |', '| --- | --- | --- |',
        `| whole table (the migration's statements) | ${range('whole', (f) => f.fillMs)} | ${range('whole', (f) => f.peakRssMb)} |`,
        `| batches of chatbots (migrate --backfill) | ${range('batched', (f) => f.fillMs)} | ${range('batched', (f) => f.peakRssMb)} |`,
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
});
