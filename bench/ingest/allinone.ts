/**
 * The all-in-one part of `npm run bench:ingest`: `npm start`'s process (ingest + consumer +
 * embedded ClickHouse + PGlite in one process, durable 200) and the ingest service alone on the
 * embedded log, each measured at 50, 256 and 1,000 connections alternately with the bare
 * Fastify route, so every ratio compares runs taken under the same machine load.
 *
 * Kept apart from bench-ingest.ts (which owns the child-process plumbing and the Kafka
 * scenario) so both can grow without stepping on each other: that file passes its helpers in.
 *
 * Env: BENCH_SWEEP (comma list of connection counts, default 50,256,1000).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ChildProcess } from 'node:child_process';
import type { FastifyInstance } from 'fastify';

export interface SweepRun { rps: number; p50: number; p99: number; non2xx: number; errors: number; cpuUsPerReq: number; loadCpuUsPerReq: number; peakRss: number }
type Started = { child: ChildProcess; port: number };

export interface SweepHelpers {
  startServer(scenario: 'bare' | 'embedded' | 'standalone'): Promise<Started>;
  load(child: ChildProcess, port: number, seconds: number, connections: number, overallRate?: number): Promise<SweepRun>;
  seconds: number;
  rounds: number;
}

// ---------------------------------------------------------------- child: `npm start` in a temp DATA_DIR

/** Builds the standalone app the way `npm start` does, on a fresh DATA_DIR. */
export async function serveAllInOne(): Promise<{ app: FastifyInstance; close(): Promise<void>; onMessage(msg: string): Promise<unknown> | undefined }> {
  const { loadConfig, createLogger } = await import('@chatlytics/core');
  const { buildStandalone } = await import('@chatlytics/standalone');
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-allinone-'));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, TRACK_RATE_LIMIT_PER_MINUTE: '1000000000', DATABASE_URL: '', CLICKHOUSE_URL: '', KAFKA_BROKERS: '' });
  const runtime = await buildStandalone(config, createLogger('warn', 'bench-allinone'));
  // How long the event loop was held at a time: the consumer's work shares the thread with the
  // accept loop, and every millisecond it holds the thread is a millisecond of every request's latency.
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const loopDelayMs = async () => ({ p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 });
  return {
    app: runtime.app,
    async close() {
      await runtime.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
    onMessage: (msg) => {
      if (msg === 'visible') return timeToVisible(runtime);
      if (msg === 'loop-delay-reset') { loopDelay.reset(); return Promise.resolve({ reset: true }); }
      if (msg === 'loop-delay') return loopDelayMs();
      return undefined;
    },
  };
}

/**
 * How long after the load stopped every event answered 200 is queryable (count by event_id):
 * polls ClickHouse until it holds as many distinct ids as the ingest accepted.
 */
async function timeToVisible(runtime: { clickhouse: { query<T>(sql: string): Promise<T[]> }; registry: { getSingleMetric(name: string): unknown } }) {
  const metric = runtime.registry.getSingleMetric('chatlytics_ingest_events_accepted_total') as { get(): Promise<{ values: { value: number }[] }> };
  const accepted = (await metric.get()).values[0]?.value ?? 0;
  const started = Date.now();
  let stored = 0;
  while (Date.now() - started < 30_000) {
    const [row] = await runtime.clickhouse.query<{ n: string }>('SELECT uniqExact(event_id) AS n FROM events');
    stored = Number(row.n);
    if (stored >= accepted) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { accepted, stored, ms: Date.now() - started };
}

// ---------------------------------------------------------------- parent: the sweep

const f = (n: number, d = 0) => n.toFixed(d).padStart(8);
/** One request to the all-in-one child (serveAllInOne's onMessage) and its answer. */
const ask = <T>(child: ChildProcess, msg: string) => new Promise<T>((resolve) => { child.once('message', (m: T) => resolve(m)); child.send(msg); });
const median = (runs: SweepRun[]) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];

export async function allInOneSweep(h: SweepHelpers): Promise<void> {
  const counts = (process.env.BENCH_SWEEP ?? '50,256,1000').split(',').map(Number);
  const scenarios = ['bare', 'standalone', 'embedded'] as const;
  const servers = new Map<string, Started>();
  for (const s of scenarios) servers.set(s, await h.startServer(s));
  const results = new Map<string, SweepRun>();
  const loadAvg: string[] = [];
  try {
    for (const s of scenarios) await h.load(servers.get(s)!.child, servers.get(s)!.port, 2, 256); // warm-up
    for (const connections of counts) {
      const runs = new Map<string, SweepRun[]>(scenarios.map((s) => [s, []]));
      for (let round = 0; round < h.rounds; round++) {
        for (const s of scenarios) {
          process.stderr.write(`sweep: ${s} at ${connections} connections, round ${round + 1}\n`);
          runs.get(s)!.push(await h.load(servers.get(s)!.child, servers.get(s)!.port, h.seconds, connections));
          // npm start's consumer is still inserting the run's events when the load stops: measured
          // right after it, the next scenario shared the cores with that backlog (the ingest alone
          // read 0.51× bare at 256 connections, 0.84× once the backlog was waited for). Each run
          // starts once the backlog is stored.
          if (s === 'standalone') await ask(servers.get(s)!.child, 'visible');
        }
      }
      for (const s of scenarios) results.set(`${s}@${connections}`, median(runs.get(s)!));
      loadAvg.push(`${connections}: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
      // Printed as soon as known: a run cut short still leaves its finished rows.
      for (const s of scenarios) console.log(`sweep ${s}@${connections}: ${JSON.stringify(results.get(`${s}@${connections}`))}; load ${loadAvg[loadAvg.length - 1]}`);
    }
    // p99 at 80 % of the all-in-one's own maximum (at 256 connections, or the largest count measured).
    const ref = results.get(`standalone@${counts.includes(256) ? 256 : counts[counts.length - 1]}`)!;
    const rate = Math.max(1, Math.floor(ref.rps * 0.8));
    const { child, port } = servers.get('standalone')!;
    await ask(child, 'loop-delay-reset');
    const at80 = await h.load(child, port, h.seconds, Math.min(256, Math.max(8, Math.ceil(rate * 0.02))), rate);
    const loopDelay = await ask<{ p99: number; max: number }>(child, 'loop-delay');
    const visible = await ask<{ accepted: number; stored: number; ms: number }>(child, 'visible');
    report(counts, results, at80, visible, loadAvg, loopDelay);
  } finally {
    for (const { child } of servers.values()) {
      child.send('stop');
      await new Promise((r) => child.once('exit', r));
    }
  }
}

function report(counts: number[], results: Map<string, SweepRun>, at80: SweepRun, visible: { accepted: number; stored: number; ms: number }, loadAvg: string[], loopDelay: { p99: number; max: number }): void {
  console.log('\nall-in-one sweep (median rounds at max; ratio = req/s ÷ bare req/s in the same sweep)');
  // Ceiling: the ratio the two cores allow, from the machine's CPU per request (the server's and
  // the load generator's, which shares the cores) in the bare run over this scenario's.
  console.log('scenario    conns  max req/s  ratio  p50 ms  p99 ms  CPU µs/req: server  load  ceiling  peak RSS MB  non-2xx errors');
  for (const connections of counts) {
    const bare = results.get(`bare@${connections}`)!;
    const machineUs = (r: SweepRun) => r.cpuUsPerReq + r.loadCpuUsPerReq;
    for (const s of ['bare', 'standalone', 'embedded']) {
      const r = results.get(`${s}@${connections}`)!;
      console.log(`${s.padEnd(10)} ${f(connections)} ${f(r.rps)} ${f(r.rps / bare.rps, 2)} ${f(r.p50, 1)} ${f(r.p99, 1)}             ${f(r.cpuUsPerReq)} ${f(r.loadCpuUsPerReq)} ${f(machineUs(bare) / machineUs(r), 2)} ${f(r.peakRss / 2 ** 20)} ${f(r.non2xx)} ${f(r.errors)}`);
    }
  }
  const ok = (b: boolean) => (b ? 'ok' : 'MISSED');
  for (const c of [50, 256].filter((n) => counts.includes(n))) {
    const ratio = results.get(`standalone@${c}`)!.rps / results.get(`bare@${c}`)!.rps;
    console.log(`standalone at ${c}: ${ratio.toFixed(2)}× bare (target ≥ 0.70: ${ok(ratio >= 0.7)})`);
  }
  for (const c of counts) {
    const ratio = results.get(`embedded@${c}`)!.rps / results.get(`bare@${c}`)!.rps;
    console.log(`ingest alone (embedded log) at ${c}: ${ratio.toFixed(2)}× bare (target ≥ 0.80: ${ok(ratio >= 0.8)}), RSS ${(results.get(`embedded@${c}`)!.peakRss / 2 ** 20).toFixed(0)} MB (target ≤ 200: ${ok(results.get(`embedded@${c}`)!.peakRss <= 200 * 2 ** 20)})`);
  }
  if (counts.includes(256) && counts.includes(1000)) {
    const fall = results.get('standalone@1000')!.rps / results.get('standalone@256')!.rps;
    console.log(`standalone 1,000 vs 256 connections: ${fall.toFixed(2)}× (target: no fall, ≥ ~0.95 given noise: ${ok(fall >= 0.95)})`);
  }
  console.log(`standalone at 80 % of max (${Math.round(at80.rps)} req/s): p50 ${at80.p50} ms, p99 ${at80.p99} ms (target ≤ 25: ${ok(at80.p99 <= 25)}), non-2xx ${at80.non2xx}`);
  console.log(`event-loop delay of npm start's process during that run: p99 ${loopDelay.p99.toFixed(1)} ms, max ${loopDelay.max.toFixed(1)} ms (how long the thread was held at a time)`);
  console.log(`after the load: ${visible.stored} of ${visible.accepted} accepted events queryable after ${visible.ms} ms (target ≤ 2000: ${ok(visible.stored >= visible.accepted && visible.ms <= 2000)})`);
  console.log(`load average after each connection count: ${loadAvg.join('; ')} (${os.cpus().length} CPUs, shared machine)`);
}
