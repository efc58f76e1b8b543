/**
 * CPU per tracking request, this checkout against another commit, alternately
 * (`npx tsx scripts/bench-cpu-ab.ts --base <commit> [--scenario embedded] [--pairs 5] [--rate 6000]`).
 *
 * Why: on a shared machine req/s ratios swing with whatever else runs, while the server's CPU
 * time per request moves far less; alternating A and B run by run lets a burst of outside load
 * hit both alike. At a fixed rate (--rate) both serve the same load, so batching (events per
 * fsync, per insert) is the same too: at "max" CPU per request falls as the achieved rate rises,
 * which would credit whichever side happened to run on a quieter moment.
 *
 * Each run starts `scripts/bench-ingest.ts --serve <scenario>` from one tree (its child-server
 * mode), warms it up for 3 s, loads it with the bench's payload mix, and reads the server's
 * CPU from /proc per thread (main thread, other Node threads, ClickHouse's named threads).
 * The base commit is exported to a temporary directory whose node_modules links to this
 * checkout's, except the workspace packages, which point into the export.
 *
 * Options: --base (required), --scenario bare|embedded|kafka|standalone, --pairs N, --seconds S,
 * --connections C, --rate R (req/s; 0 = closed loop at max). Kafka needs KAFKA_BROKERS.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { payloadMix } from './bench-ingest-payloads.js';
import { median } from './median.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opt } = parseArgs({
  options: {
    base: { type: 'string' }, scenario: { type: 'string', default: 'embedded' }, pairs: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '64' }, rate: { type: 'string', default: '6000' },
  },
});
if (!opt.base) throw new Error('--base <commit> is required');

/** `git archive` of a commit, with node_modules linked entry by entry (see the header). */
function exportTree(commit: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpu-ab-'));
  execFileSync('sh', ['-c', `git -C "${root}" archive "${commit}" | tar -x -C "${dir}"`]);
  const nm = path.join(root, 'node_modules');
  fs.mkdirSync(path.join(dir, 'node_modules/@chatlytics'), { recursive: true });
  for (const name of fs.readdirSync(nm)) {
    if (name !== '@chatlytics') fs.symlinkSync(path.join(nm, name), path.join(dir, 'node_modules', name));
  }
  for (const name of fs.readdirSync(path.join(nm, '@chatlytics'))) {
    const target = fs.readlinkSync(path.join(nm, '@chatlytics', name)).replace(/^(\.\.\/)+/, '');
    fs.symlinkSync(path.join(dir, target), path.join(dir, 'node_modules/@chatlytics', name));
  }
  return dir;
}

/** CPU ticks per thread of a process, grouped: main thread, other threads by name. */
function threadTicks(pid: number): Map<string, number> {
  const byThread = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const group = tid === String(pid) ? 'main' : name.replace(/\d+$/, '');
      byThread.set(`${group}\t${tid}`, Number(fields[11]) + Number(fields[12]));
    } catch { /* the thread ended meanwhile */ }
  }
  return byThread;
}

interface Run { tree: string; rps: number; cpuUsPerReq: number; threads: Record<string, number>; p99: number }

async function measure(tree: string, bodies: string[]): Promise<Run> {
  const child = spawn(process.execPath, ['--import=tsx', path.join(tree, 'scripts/bench-ingest.ts'), '--serve', opt.scenario!], {
    cwd: tree, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`${tree}: server exited with ${code}`)));
  });
  const cpu = () => new Promise<number>((resolve) => {
    child.once('message', (m: { cpuUs: number }) => resolve(m.cpuUs));
    child.send('stats');
  });
  const rate = Number(opt.rate) || undefined;
  const load = (duration: number) => autocannon({
    url: `http://127.0.0.1:${port}`, connections: Number(opt.connections), duration, overallRate: rate, ignoreCoordinatedOmission: rate !== undefined,
    requests: bodies.map((body) => ({ method: 'POST', path: '/api/analytics/track', body, headers: {
      'content-type': 'application/json',
      // Real beacons carry a browser's User-Agent, which the route classifies (is_bot).
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
    } })),
  });
  await load(3);
  const ticksBefore = threadTicks(child.pid!);
  const before = await cpu();
  const result = await load(Number(opt.seconds));
  const after = await cpu();
  const ticksAfter = threadTicks(child.pid!);
  child.send('stop');
  await new Promise((r) => child.once('exit', r));
  const requests = Math.max(1, result.requests.total);
  const threads: Record<string, number> = {};
  const tick = 1e6 / 100; // µs per clock tick (USER_HZ is 100 on Linux)
  for (const [key, ticks] of ticksAfter) {
    const group = key.split('\t')[0];
    threads[group] = (threads[group] ?? 0) + ((ticks - (ticksBefore.get(key) ?? 0)) * tick) / requests;
  }
  for (const k of Object.keys(threads)) if (threads[k] < 0.05) delete threads[k];
  return { tree, rps: result.requests.average, cpuUsPerReq: (after - before) / requests, threads, p99: result.latency.p99 };
}

async function main(): Promise<void> {
  const baseTree = exportTree(opt.base!);
  const trees = { base: baseTree, head: root };
  const bodies = payloadMix(400);
  const runs: Record<keyof typeof trees, Run[]> = { base: [], head: [] };
  try {
    for (let pair = 0; pair < Number(opt.pairs); pair++) {
      for (const side of ['base', 'head'] as const) {
        const r = await measure(trees[side], bodies);
        runs[side].push(r);
        const threads = Object.entries(r.threads).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ');
        console.log(`${side.padEnd(4)} ${opt.scenario}: ${Math.round(r.rps)} req/s, CPU ${r.cpuUsPerReq.toFixed(1)} µs/req (${threads}), p99 ${r.p99} ms; load ${os.loadavg()[0].toFixed(1)}`);
      }
    }
  } finally {
    fs.rmSync(baseTree, { recursive: true, force: true });
  }
  const b = median(runs.base.map((r) => r.cpuUsPerReq));
  const h = median(runs.head.map((r) => r.cpuUsPerReq));
  const lower = runs.head.filter((r, i) => r.cpuUsPerReq < runs.base[i].cpuUsPerReq).length;
  console.log(`\nmedian CPU µs/request: base (${opt.base}) ${b.toFixed(1)}, this checkout ${h.toFixed(1)} (${((h / b - 1) * 100).toFixed(1)} %); `
    + `this checkout lower in ${lower} of ${runs.head.length} pairs`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
