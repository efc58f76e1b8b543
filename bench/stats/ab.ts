/**
 * `npm run bench:stats-ab -- --base <commit> --dir <dir> [--files a,b] [--pairs 30] [--days 30]`: the
 * statistics' query files of this checkout against those of another commit, call by call (--pairs) on the
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
 * Data: --dir, a directory bench:stats filled (`npm run bench:stats -- --dir <dir> [--profile
 * big-shop]` once). Files: the statistics' query names under clickhouse/queries (default: the four
 * the analytics page reads), each run on every chatbot of the data, bound as the repository binds
 * them (statsQueryParams). The base commit is checked out in a temporary worktree
 * (../lib/base.ts); its files must take the same parameters as this checkout's. `--files a=b` times the base's `a`
 * against this checkout's `b` (a variant of `a` under another name); answers are then compared on
 * the columns both return (`b` may leave some out).
 *
 * `--plan`: this checkout's side runs `EXPLAIN PLAN` of the same query (its answer is not
 * compared): the ratio is the share of a call spent before reading a row (parsing, analysis,
 * planning, primary-key analysis), the part of a small shop's latency its data size cannot cut.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createChdbEngine, sqlFile } from '@chatlytics/clickhouse';
import { daysWindow, statsQueryParams } from '@chatlytics/dashboard/stats';
import { opt, type Values } from '../lib/args.js';
import { checkoutBase } from '../lib/base.js';
import { defineBench } from '../lib/bench.js';
import { alternate, compare } from '../lib/pairs.js';
import { benchLogger, type Report } from '../lib/report.js';
import { median } from '../lib/stats.js';
import { dataClock } from './data.js';

const OPTIONS = {
  base: opt.string('HEAD', 'the commit whose query files are the baseline'),
  dir: opt.string(undefined, 'a directory bench:stats filled (required)'),
  pairs: opt.number(30, 'pairs of calls per file (base and this checkout, the order flipped every pair)', { min: 1, integer: true, alias: 'calls' }),
  days: opt.number(30, 'the window, in days', { min: 1, integer: true }),
  files: opt.list(['stats/engagement', 'stats/popup_metrics', 'stats/purchases', 'stats/timeseries'], 'query files (a=b: the base\'s a against this checkout\'s b)'),
  plan: opt.flag('this checkout\'s side runs EXPLAIN PLAN of the query: the share of a call spent before reading a row'),
};

export default defineBench({ summary: 'The statistics\' query files of this checkout against those of --base, call by call on the same data (a bench:stats --dir), with their answers compared.', options: OPTIONS, run: main });

const WARM_UP = 4;
type Side = 'base' | 'self';

/** The answer with floats rounded to 9 significant digits: equal answers summed in another order compare equal. */
const canonical = (rows: unknown) => JSON.stringify(rows, (_k, v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(9)) : v));
/** Each row with only the columns the other side's first row has too. */
const shared = (rows: Record<string, unknown>[], other: Record<string, unknown>[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => other[0] === undefined || k in other[0])));

async function main(o: Values<typeof OPTIONS>, report: Report) {
  const dir = o.dir;
  if (!dir || !fs.existsSync(dir)) throw new Error('--dir must name a directory bench:stats filled (see the header)');
  const base = checkoutBase(o.base);
  const baseDir = path.join(base.dir, 'clickhouse', 'queries');
  const engine = await createChdbEngine({ path: dir, database: 'analytics', log: benchLogger('warn'), connections: 1 });
  try {
    // The data's clock, as bench:stats keeps it.
    const w = daysWindow(o.days, await dataClock(engine));
    const bots = (await engine.query<{ id: string }>('SELECT DISTINCT chatbot_id AS id FROM events ORDER BY id')).map((r) => r.id);
    if (bots.length === 0) throw new Error(`${dir} has no events: run bench:stats on it first`);
    // ab_block: stats/purchases.sql with its A/B block (a file without the parameter ignores it).
    const params = bots.map((chatbotId) => ({ ...statsQueryParams(chatbotId, w), ab_block: 'true' }));
    report.text(`${dir}: ${params.length} chatbot(s) in a ${o.days}-day window; base ${o.base} (${base.commit}); ${o.pairs} pairs per file, one connection`);
    const selfLabel = o.plan ? 'plan' : 'this';
    report.text(`file                              base p50   ${selfLabel} p50  base CPU   ${selfLabel} CPU  median ratio  pairs faster`);
    let differ = false;
    for (const spec of o.files) {
      // `name=other`: the base commit's `name` against this checkout's `other` (a file's new variant).
      const [file, selfFile = file] = spec.split('=') as [string, string?];
      const sql = { base: sqlFile(file, baseDir), self: `${o.plan ? 'EXPLAIN PLAN ' : ''}${sqlFile(selfFile)}` };
      const call = async (side: Side, p: Record<string, unknown>) => {
        const c = process.cpuUsage();
        const t = performance.now();
        const rows = await engine.query<Record<string, unknown>>(sql[side], p);
        const ms = performance.now() - t;
        const d = process.cpuUsage(c);
        return { ms, cpuMs: (d.user + d.system) / 1000, rows };
      };
      for (let i = 0; i < WARM_UP; i++) for (const side of ['base', 'self'] as const) await call(side, params[0]);
      // Each call of the base query is followed by a call of this checkout's on the same chatbot
      // and window, the order flipped every pair.
      const runs = await alternate(o.pairs, {
        base: (i) => call('base', params[i % params.length]),
        self: (i) => call('self', params[i % params.length]),
      }, {
        flip: true,
        onRound(i, pair) {
          if (o.plan) return; // a plan is not an answer: nothing to compare
          const answers = { base: canonical(shared(pair.base.rows, pair.self.rows)), self: canonical(shared(pair.self.rows, pair.base.rows)) };
          if (answers.base === answers.self) return;
          differ = true;
          report.text(`  ${file}: answers differ for chatbot ${String(params[i % params.length].chatbot_id)}:\n    base ${answers.base.slice(0, 300)}\n    this ${answers.self.slice(0, 300)}`);
        },
      });
      const time = compare(runs.base.map((r) => r.ms), runs.self.map((r) => r.ms));
      const cpu = { base: median(runs.base.map((r) => r.cpuMs)), self: median(runs.self.map((r) => r.cpuMs)) };
      report.text(`${spec.padEnd(32)} ${time.baseline.median.toFixed(1).padStart(9)} ${time.candidate.median.toFixed(1).padStart(10)} ${cpu.base.toFixed(1).padStart(9)} ${cpu.self.toFixed(1).padStart(10)} ${time.pairRatio.toFixed(3).padStart(13)} ${`${time.candidateLower}/${o.pairs}`.padStart(13)}`);
      const context = { file: spec, base: o.base, pairs: o.pairs, plan: o.plan };
      for (const [side, s, c] of [[`base ${o.base}`, time.baseline, cpu.base], [o.plan ? 'this checkout\'s plan' : 'this checkout', time.candidate, cpu.self]] as const) {
        report.figure('time per call', s.median, 'ms', { ...context, side, min: s.min, max: s.max, n: s.n });
        report.figure('CPU per call', c, 'ms', { ...context, side });
      }
      report.figure('time ratio', time.pairRatio, '×', { ...context, of: 'median of this ÷ base per pair', ratioOfMedians: Number(time.ratio.toFixed(4)), candidateLower: time.candidateLower });
    }
    if (differ) process.exitCode = 1;
  } finally {
    await engine.close();
    base.remove();
  }
}
