/**
 * Dashboard read benchmark (the first part of `npm run bench:dashboard`): one account with 50 chatbots, 2,000 data
 * sources and a detail of 200 chunks, on PGlite and on the PostgreSQL server at DATABASE_URL
 * (a throw-away database beside it). The dashboard plugin listens in a child process (autocannon's
 * CPU is not the server's), authenticated by an API key. Baseline, same run: a bare Fastify child
 * answering each route with the dashboard's own response body, so the difference is the
 * dashboard's own work. Per route: req/s and p99 at max throughput, p50/p99 at 200 req/s (bursty
 * autocannon overallRate, and a steady paced rate); target p99 < 50 ms at a steady 200 req/s.
 * The servers are server.ts; the account is seed.ts.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { opt, type Values } from '../lib/args.js';
import { defineBench } from '../lib/bench.js';
import { startChild, stopChild } from '../lib/child.js';
import type { Report } from '../lib/report.js';
import { quantile } from '../lib/stats.js';
import { pacedConnections } from '../ingest/load.js';
import { seed } from './seed.js';
import type { ServeSpec } from './server.js';

const API_OPTIONS = {
  seconds: opt.number(10, 'seconds per measurement', { min: 1 }),
  connections: opt.number(32, 'connections at max throughput', { min: 1, integer: true }),
  variants: opt.list(['pglite', 'server'], 'stores: pglite, and the PostgreSQL server at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres)'),
  routes: opt.list(['chatbots', 'list', 'detail'], 'routes: the chatbot list, the data-source list, a data-source detail'),
  'cpu-prof-dir': opt.string(undefined, 'the dashboard child writes a V8 CPU profile into this directory when it stops'),
};
type Options = Values<typeof API_OPTIONS>;

export default defineBench({ summary: 'The dashboard\'s API routes (50 chatbots, 2,000 data sources) against a bare route answering the same bodies, on PGlite and a PostgreSQL server.', options: API_OPTIONS, run: benchApi });

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server.ts');

function startServer(spec: ServeSpec, cpuProfDir?: string) {
  const profile = spec.kind === 'dashboard' && cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [];
  return startChild([...profile, '--import=tsx', SERVER, JSON.stringify(spec)], { label: spec.kind });
}

interface Run { rps: number; p50: number; p99: number; bad: number }

async function load(port: number, url: string, key: string, seconds: number, connections: number, overallRate?: number): Promise<Run> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${url}`, connections, duration: seconds, overallRate,
    headers: { authorization: `Bearer ${key}` },
    // At a fixed rate autocannon 9's coordinated-omission correction pads every response slower
    // than 1 ms with fabricated samples (see ../ingest/load.ts): the raw latencies are the honest figure.
    ignoreCoordinatedOmission: overallRate !== undefined,
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, bad: result.non2xx + result.errors + result.timeouts };
}

/**
 * A steady open-loop load: one request every 1000/rate ms on keep-alive connections, each
 * latency measured from its SCHEDULED send time (a request delayed behind a slow server counts
 * its wait: no coordinated omission). autocannon's overallRate is kept for comparison, but it
 * paces per connection per second — every connection fires its quota back to back at the start
 * of each second — so it measures bursts at full concurrency rather than a steady rate.
 */
async function paced(port: number, url: string, key: string, seconds: number, rate: number): Promise<Run> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const interval = 1000 / rate;
  const total = Math.round(seconds * rate);
  const latencies: number[] = [];
  let bad = 0;
  const start = performance.now() + 50;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const scheduled = start + i * interval;
    const wait = scheduled - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(new Promise<void>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: url, agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        res.resume();
        res.once('end', () => {
          if (res.statusCode !== 200) bad++;
          latencies.push(performance.now() - scheduled);
          resolve();
        });
      });
      req.once('error', () => { bad++; resolve(); });
    }));
  }
  // A server slower than the rate would otherwise keep this waiting for minutes: what has not
  // answered a few seconds after the last send counts as failed, and the run reports what was done.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(inFlight), new Promise((r) => { timer = setTimeout(r, 5000); })]);
  clearTimeout(timer);
  const elapsed = (performance.now() - start) / 1000;
  bad += total - latencies.length;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (q: number) => Math.round(quantile(latencies, q) ?? 0);
  return { rps: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99), bad };
}

const TARGET_RATE = 200;
const TARGET_P99_MS = 50;

async function benchVariant(name: string, dataDir: string, databaseUrl: string | undefined, o: Options, report: Report) {
  const { seconds, connections } = o;
  const t0 = performance.now();
  const { key, detailId } = await seed(dataDir, databaseUrl);
  report.text(`\n== ${name}: seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const routes = ['/api/dashboard/chatbots', '/api/dashboard/data-sources', `/api/dashboard/data-sources/${detailId}`];

  const dashboard = await startServer({ kind: 'dashboard', dataDir, databaseUrl }, o['cpu-prof-dir']);
  const bodies: Record<string, unknown> = {};
  for (const url of routes) {
    const res = await fetch(`http://127.0.0.1:${dashboard.port}${url}`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    const text = await res.text();
    bodies[url] = JSON.parse(text);
    report.text(`${url}: ${(text.length / 1024).toFixed(0)} KiB`);
  }
  const bodiesFile = path.join(dataDir, 'baseline-bodies.json');
  fs.writeFileSync(bodiesFile, JSON.stringify(bodies));
  const baseline = await startServer({ kind: 'baseline', bodiesFile });
  try {
    for (const [i, url] of routes.entries()) {
      if (!o.routes.includes(['chatbots', 'list', 'detail'][i])) continue;
      const label = url.replace(detailId, '{id}');
      const row: string[] = [];
      for (const [server, port] of [['baseline', baseline.port], ['dashboard', dashboard.port]] as const) {
        await load(port, url, key, 2, connections); // warm-up: JIT, pools, caches
        const max = await load(port, url, key, seconds, connections);
        // Enough connections to carry the rate at 40 ms per request, not more.
        const fixed = await load(port, url, key, seconds, pacedConnections(TARGET_RATE, Infinity, 40), TARGET_RATE);
        // Below the rate at full load, a steady run would only measure an ever-growing queue.
        const steady = max.rps >= TARGET_RATE ? await paced(port, url, key, seconds, TARGET_RATE) : undefined;
        const verdict = server === 'dashboard' ? (steady && steady.p99 < TARGET_P99_MS && !steady.bad ? ' (target met)' : ' (TARGET MISSED)') : '';
        const bad = max.bad + fixed.bad + (steady?.bad ?? 0);
        row.push(`  ${server.padEnd(9)} max ${Math.round(max.rps)} req/s p99 ${max.p99} ms`
          + ` | overallRate ${TARGET_RATE}: ${Math.round(fixed.rps)} req/s p50 ${fixed.p50} p99 ${fixed.p99} ms`
          + (steady ? ` | steady ${TARGET_RATE}: ${Math.round(steady.rps)} req/s p50 ${steady.p50} p99 ${steady.p99} ms` : ` | steady ${TARGET_RATE}: n/a (max below it)`)
          + verdict
          + (bad ? ` [${bad} failed]` : ''));
        report.figures({ part: 'api', store: name, route: label, server, connections, seconds }, [
          ['max req/s', max.rps, 'req/s'], ['p99 at max', max.p99, 'ms'], ['failed', bad, 'requests'],
        ]);
        report.figures({ part: 'api', store: name, route: label, server, rate: TARGET_RATE, pacing: 'autocannon overallRate' }, [
          ['req/s at the rate', fixed.rps, 'req/s'], ['p50 at the rate', fixed.p50, 'ms'], ['p99 at the rate', fixed.p99, 'ms'],
        ]);
        if (steady) {
          report.figures({ part: 'api', store: name, route: label, server, rate: TARGET_RATE, pacing: 'steady' }, [
            ['req/s at the rate', steady.rps, 'req/s'], ['p50 at the rate', steady.p50, 'ms'], ['p99 at the rate', steady.p99, 'ms'],
          ]);
        }
      }
      report.text(`${label}\n${row.join('\n')}`);
    }
  } finally {
    await stopChild(baseline.child);
    await stopChild(dashboard.child);
  }
}

/** The dashboard's API routes against the baseline, on each store of --variants. */
async function benchApi(o: Options, report: Report): Promise<void> {
  report.text(`${o.seconds} s per measurement`);
  if (o.variants.includes('pglite')) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-dashboard-'));
    try {
      await benchVariant('PGlite (embedded)', dataDir, undefined, o, report);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }

  if (!o.variants.includes('server')) return;
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = `bench_dashboard_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const serverDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-dashboard-'));
  try {
    await benchVariant(`PostgreSQL server (${url.host})`, serverDir, url.toString(), o, report);
  } finally {
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
    fs.rmSync(serverDir, { recursive: true, force: true });
  }
}
