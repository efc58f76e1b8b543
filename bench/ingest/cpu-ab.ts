/**
 * CPU per tracking request, this checkout against another commit, alternately
 * (`npm run bench -- cpu-ab --base <commit> [--scenario embedded] [--pairs 5] [--rate 6000]`).
 *
 * Why: on a shared machine req/s ratios swing with whatever else runs, while the server's CPU
 * time per request moves far less; alternating base and this checkout run by run lets a burst of
 * outside load hit both alike. At a fixed rate (--rate) both serve the same load, so batching
 * (events per fsync, per insert) is the same too: at "max" CPU per request falls as the achieved
 * rate rises, which would credit whichever side happened to run on a quieter moment.
 *
 * Each run starts the ingest benches' server child (server.ts) of one tree, warms it up for 3 s,
 * loads it with the bench's payload mix, and reads the server's CPU from /proc per thread (main
 * thread, other Node threads, ClickHouse's named threads). Kafka needs KAFKA_BROKERS.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { opt } from '../lib/args.js';
import { checkoutBase, REPO_ROOT } from '../lib/base.js';
import { defineBench } from '../lib/bench.js';
import { startChild, stopChild } from '../lib/child.js';
import { alternate, compare, reportComparison } from '../lib/pairs.js';
import { threadsCpu } from '../lib/proc.js';
import { load, trackRequests } from './load.js';
import { payloadMix } from './payloads.js';

/** A tree's ingest server: server.ts, or in a commit from before bench/ existed the child mode of scripts/bench-ingest.ts. */
function serverArgs(tree: string, scenario: string): string[] {
  const server = path.join(tree, 'bench/ingest/server.ts');
  return fs.existsSync(server) ? [server, scenario] : [path.join(tree, 'scripts/bench-ingest.ts'), '--serve', scenario];
}

/** CPU µs per thread group of a process: its main thread, the others by name. */
function threadGroups(pid: number): Map<string, { group: string; us: number }> {
  const out = new Map<string, { group: string; us: number }>();
  for (const [tid, t] of threadsCpu(pid)) out.set(tid, { group: tid === String(pid) ? 'main' : t.name, us: t.us });
  return out;
}

interface Run { rps: number; cpuUsPerReq: number; threads: Record<string, number>; p99: number }

export default defineBench({
  summary: 'CPU per tracking request of the ingest server, this checkout against --base, alternately, at a fixed rate.',
  options: {
    base: opt.string(undefined, 'the commit to compare with (required)'),
    scenario: opt.choice(['bare', 'nobus', 'embedded', 'kafka', 'standalone'], 'embedded', 'the server (bench/ingest/server.ts)'),
    pairs: opt.number(5, 'pairs of runs (base, then this checkout)', { min: 1, integer: true }),
    seconds: opt.number(10, 'seconds per run (after a 3 s warm-up)', { min: 1 }),
    connections: opt.number(64, 'connections', { min: 1, integer: true }),
    rate: opt.number(6000, 'requests per second; 0 = closed loop at max', { min: 0 }),
  },
  async run(o, report) {
    if (!o.base) throw new Error('--base <commit> is required');
    const requests = trackRequests(payloadMix(400), {
      'content-type': 'application/json',
      // Real beacons carry a browser's User-Agent, which the route classifies (is_bot).
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
    });
    const measure = async (tree: string): Promise<Run> => {
      const server = await startChild(['--import=tsx', ...serverArgs(tree, o.scenario)], { label: tree, cwd: tree, env: { ...process.env, LOG_LEVEL: 'warn' } });
      const run = { seconds: o.seconds, connections: o.connections, rate: o.rate || undefined, sampleRss: false };
      await load(server, requests, { ...run, seconds: 3 });
      const ticksBefore = threadGroups(server.child.pid!);
      const result = await load(server, requests, run);
      const ticksAfter = threadGroups(server.child.pid!);
      await stopChild(server.child);
      const total = Math.max(1, result.requests);
      const threads: Record<string, number> = {};
      for (const [tid, { group, us }] of ticksAfter) threads[group] = (threads[group] ?? 0) + (us - (ticksBefore.get(tid)?.us ?? 0)) / total;
      for (const k of Object.keys(threads)) if (threads[k] < 0.05) delete threads[k];
      return { rps: result.rps, cpuUsPerReq: result.cpuUsPerReq, threads, p99: result.p99 };
    };
    const base = checkoutBase(o.base);
    report.text(`base ${o.base} (${base.commit}) in ${base.dir}`);
    let runs: Record<'base' | 'head', Run[]>;
    try {
      runs = await alternate(o.pairs, { base: () => measure(base.dir), head: () => measure(REPO_ROOT) }, {
        onRound(_, pair) {
          for (const side of ['base', 'head'] as const) {
            const r = pair[side];
            const threads = Object.entries(r.threads).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ');
            report.text(`${side.padEnd(4)} ${o.scenario}: ${Math.round(r.rps)} req/s, CPU ${r.cpuUsPerReq.toFixed(1)} µs/req (${threads}), p99 ${r.p99} ms; load ${os.loadavg()[0].toFixed(1)}`);
          }
        },
      });
    } finally {
      base.remove();
    }
    const cmp = compare(runs.base.map((r) => r.cpuUsPerReq), runs.head.map((r) => r.cpuUsPerReq));
    report.text(`\nmedian CPU µs/request: base (${o.base}) ${cmp.baseline.median.toFixed(1)}, this checkout ${cmp.candidate.median.toFixed(1)} (${((cmp.ratio - 1) * 100).toFixed(1)} %); `
      + `this checkout lower in ${cmp.candidateLower} of ${cmp.pairs} pairs`);
    reportComparison(report, 'server CPU per request', 'µs', cmp, { baseline: `base ${o.base}`, candidate: 'this checkout' }, { scenario: o.scenario, rate: o.rate });
  },
});
