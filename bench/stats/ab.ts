/**
 * npm run bench:stats-ab -- --base <commit> [--files a,b] [--calls 30] [--days 30]: the
 * statistics' query files of this checkout against those of another commit, call by call on the
 * same data, in one process.
 *
 * Why: on this project's shared VM a query's p50 moves by ±20 % from one run to the next, more
 * than most changes to a query gain, so two bench:stats runs cannot tell a 5 % gain from noise.
 * Here each call of the base query is followed by a call of this checkout's (the order flips
 * every call), both on the same chatbot and window, so a burst of outside load hits both alike;
 * the figure to read is the median of the per-pair ratios and how many pairs favour this side.
 * Each pair's answers are compared too (floats to 9 significant digits, as they may be summed in
 * another order): a query that got faster by answering differently is reported, and the run fails.
 *
 * Data: BENCH_DIR, a directory bench:stats filled (`BENCH_DIR=… npm run bench:stats [-- --profile
 * big-shop]` once). Files: the statistics' query names under clickhouse/queries (default: the four
 * the analytics page reads), each run on every chatbot of the data, bound as the repository binds
 * them (statsQueryParams). The base commit's clickhouse/queries is exported with `git archive`;
 * its files must take the same parameters as this checkout's. `--files a=b` times the base's `a`
 * against this checkout's `b` (a variant of `a` under another name); answers are then compared on
 * the columns both return (`b` may leave some out).
 *
 * `--plan`: this checkout's side runs `EXPLAIN PLAN` of the same query (its answer is not
 * compared): the ratio is the share of a call spent before reading a row (parsing, analysis,
 * planning, primary-key analysis), the part of a small shop's latency its data size cannot cut.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createChdbEngine, parseClickhouseTime, sqlFile } from '@chatlytics/clickhouse';
import { daysWindow, statsQueryParams } from '@chatlytics/dashboard/stats';
import { machineSpeedLine } from './machine-speed.js';
import { median } from './median.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opt } = parseArgs({
  options: {
    base: { type: 'string', default: 'HEAD' }, calls: { type: 'string', default: '30' }, days: { type: 'string', default: '30' },
    files: { type: 'string', default: 'stats/engagement,stats/popup_metrics,stats/purchases,stats/timeseries' },
    plan: { type: 'boolean', default: false },
  },
});
const dir = process.env.BENCH_DIR;
if (!dir || !fs.existsSync(dir)) throw new Error('BENCH_DIR must name a directory bench:stats filled (see the header)');
const CALLS = Number(opt.calls);
const WARM_UP = 4;

/** The base commit's clickhouse/queries in a temporary directory. */
function exportQueries(commit: string): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'stats-ab-'));
  const tar = execFileSync('git', ['archive', commit, 'clickhouse/queries'], { cwd: root, maxBuffer: 64 << 20 });
  execFileSync('tar', ['-x', '-C', out], { input: tar });
  return path.join(out, 'clickhouse', 'queries');
}

/** The answer with floats rounded to 9 significant digits: equal answers summed in another order compare equal. */
const canonical = (rows: unknown) => JSON.stringify(rows, (_k, v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(9)) : v));
/** Each row with only the columns the other side's first row has too. */
const shared = (rows: Record<string, unknown>[], other: Record<string, unknown>[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => other[0] === undefined || k in other[0])));

async function main() {
  console.log(machineSpeedLine());
  const baseDir = exportQueries(opt.base!);
  const engine = await createChdbEngine({ path: dir!, database: 'analytics', log: pino({ level: 'warn' }), connections: 1 });
  try {
    // The data's clock, as bench:stats keeps it: the generating INSERT stamped inserted_at.
    const [{ last }] = await engine.query<{ last: string }>('SELECT toString(min(inserted_at)) AS last FROM events');
    const w = daysWindow(Number(opt.days), new Date(parseClickhouseTime(last)));
    const bots = (await engine.query<{ id: string }>('SELECT DISTINCT chatbot_id AS id FROM events ORDER BY id')).map((r) => r.id);
    if (bots.length === 0) throw new Error(`${dir} has no events: run bench:stats on it first`);
    // ab_block: stats/purchases.sql with its A/B block (a file without the parameter ignores it).
    const params = bots.map((chatbotId) => ({ ...statsQueryParams(chatbotId, w), ab_block: 'true' }));
    console.log(`${dir}: ${params.length} chatbot(s) in a ${opt.days}-day window; base ${opt.base}; ${CALLS} pairs per file, one connection`);
    const selfLabel = opt.plan ? 'plan' : 'this';
    console.log(`file                              base p50   ${selfLabel} p50  base CPU   ${selfLabel} CPU  median ratio  pairs faster`);
    let differ = false;
    for (const spec of opt.files!.split(',')) {
      // `name=other`: the base commit's `name` against this checkout's `other` (a file's new variant).
      const [file, selfFile = file] = spec.split('=') as [string, string?];
      const sql = { base: sqlFile(file, baseDir), self: `${opt.plan ? 'EXPLAIN PLAN ' : ''}${sqlFile(selfFile)}` };
      const time = { base: [] as number[], self: [] as number[] };
      const cpu = { base: [] as number[], self: [] as number[] };
      const run = async (side: 'base' | 'self', p: Record<string, unknown>) => {
        const c = process.cpuUsage();
        const t = performance.now();
        const rows = await engine.query<Record<string, unknown>>(sql[side], p);
        time[side].push(performance.now() - t);
        const d = process.cpuUsage(c);
        cpu[side].push((d.user + d.system) / 1000);
        return rows;
      };
      for (let i = 0; i < WARM_UP; i++) for (const side of ['base', 'self'] as const) await run(side, params[0]);
      for (const side of ['base', 'self'] as const) { time[side].length = 0; cpu[side].length = 0; }
      for (let i = 0; i < CALLS; i++) {
        const p = params[i % params.length];
        const order = i % 2 === 0 ? (['base', 'self'] as const) : (['self', 'base'] as const);
        const rows: Record<'base' | 'self', Record<string, unknown>[]> = { base: [], self: [] };
        for (const side of order) rows[side] = await run(side, p);
        if (opt.plan) continue; // a plan is not an answer: nothing to compare
        const answers = { base: canonical(shared(rows.base, rows.self)), self: canonical(shared(rows.self, rows.base)) };
        if (answers.base !== answers.self) {
          differ = true;
          console.log(`  ${file}: answers differ for chatbot ${String(p.chatbot_id)}:\n    base ${answers.base.slice(0, 300)}\n    this ${answers.self.slice(0, 300)}`);
        }
      }
      const ratios = time.self.map((t, i) => t / time.base[i]);
      console.log(`${spec.padEnd(32)} ${median(time.base).toFixed(1).padStart(9)} ${median(time.self).toFixed(1).padStart(10)} ${median(cpu.base).toFixed(1).padStart(9)} ${median(cpu.self).toFixed(1).padStart(10)} ${median(ratios).toFixed(3).padStart(13)} ${`${ratios.filter((r) => r < 1).length}/${CALLS}`.padStart(13)}`);
    }
    if (differ) process.exitCode = 1;
  } finally {
    await engine.close();
    fs.rmSync(path.dirname(path.dirname(baseDir)), { recursive: true, force: true });
  }
}

await main();
