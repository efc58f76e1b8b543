/**
 * The all-in-one part of `npm run bench:ingest`: `npm start`'s process (ingest + consumer +
 * embedded ClickHouse + PGlite in one process, durable 200) and the ingest service alone on the
 * embedded log, each measured at 50, 256 and 1,000 connections (--sweep) alternately with the
 * bare Fastify route, so every ratio compares runs taken under the same machine load.
 */
import type autocannon from 'autocannon';
import os from 'node:os';
import { opt } from '../lib/args.js';
import { ask, stopChild, type Started } from '../lib/child.js';
import { alternate } from '../lib/pairs.js';
import type { Report } from '../lib/report.js';
import { medianBy } from '../lib/stats.js';
import { load, pacedConnections, startServer, type LoadRun, type ServerOptions } from './load.js';

export const SWEEP_OPTIONS = {
  sweep: opt.numbers([50, 256, 1000], 'connection counts of the all-in-one sweep'),
};

export interface Sweep {
  sweep: number[];
  seconds: number;
  rounds: number;
  server: ServerOptions;
  requests: autocannon.Request[];
}

const f = (n: number, d = 0) => n.toFixed(d).padStart(8);

export async function allInOneSweep(h: Sweep, report: Report): Promise<void> {
  const counts = h.sweep;
  const scenarios = ['bare', 'standalone', 'embedded'] as const;
  const servers = new Map<string, Started>();
  for (const s of scenarios) servers.set(s, await startServer(s, h.server));
  const results = new Map<string, LoadRun>();
  const loadAvg: string[] = [];
  const run = (s: string, seconds: number, connections: number, rate?: number) => load(servers.get(s)!, h.requests, { seconds, connections, rate });
  try {
    for (const s of scenarios) await run(s, 2, 256); // warm-up
    for (const connections of counts) {
      const runs = await alternate(h.rounds, Object.fromEntries(scenarios.map((s) => [s, async (round: number) => {
        report.text(`sweep: ${s} at ${connections} connections, round ${round + 1}`);
        const r = await run(s, h.seconds, connections);
        // npm start's consumer is still inserting the run's events when the load stops: measured
        // right after it, the next scenario shared the cores with that backlog (the ingest alone
        // read 0.51× bare at 256 connections, 0.84× once the backlog was waited for). Each run
        // starts once the backlog is stored.
        if (s === 'standalone') await ask(servers.get(s)!.child, 'visible');
        return r;
      }])) as Record<(typeof scenarios)[number], (round: number) => Promise<LoadRun>>);
      for (const s of scenarios) results.set(`${s}@${connections}`, medianBy(runs[s], (r) => r.rps));
      loadAvg.push(`${connections}: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
      // Printed as soon as known: a run cut short still leaves its finished rows.
      for (const s of scenarios) report.text(`sweep ${s}@${connections}: ${JSON.stringify(results.get(`${s}@${connections}`))}; load ${loadAvg[loadAvg.length - 1]}`);
    }
    // p99 at 80 % of the all-in-one's own maximum (at 256 connections, or the largest count measured).
    const ref = results.get(`standalone@${counts.includes(256) ? 256 : counts[counts.length - 1]}`)!;
    const rate = Math.max(1, Math.floor(ref.rps * 0.8));
    const { child } = servers.get('standalone')!;
    await ask(child, 'loop-delay-reset');
    const at80 = await run('standalone', h.seconds, pacedConnections(rate, 256), rate);
    const loopDelay = await ask<{ p99: number; max: number }>(child, 'loop-delay');
    const visible = await ask<{ accepted: number; stored: number; ms: number }>(child, 'visible');
    summary(report, counts, results, at80, visible, loadAvg, loopDelay);
  } finally {
    for (const { child } of servers.values()) await stopChild(child);
  }
}

function summary(report: Report, counts: number[], results: Map<string, LoadRun>, at80: LoadRun, visible: { accepted: number; stored: number; ms: number }, loadAvg: string[], loopDelay: { p99: number; max: number }): void {
  report.text('\nall-in-one sweep (median rounds at max; ratio = req/s ÷ bare req/s in the same sweep)');
  // Ceiling: the ratio the two cores allow, from the machine's CPU per request (the server's and
  // the load generator's, which shares the cores) in the bare run over this scenario's.
  report.text('scenario    conns  max req/s  ratio  p50 ms  p99 ms  CPU µs/req: server  load  ceiling  peak RSS MB  non-2xx errors');
  for (const connections of counts) {
    const bare = results.get(`bare@${connections}`)!;
    const machineUs = (r: LoadRun) => r.cpuUsPerReq + r.loadCpuUsPerReq;
    for (const s of ['bare', 'standalone', 'embedded']) {
      const r = results.get(`${s}@${connections}`)!;
      report.text(`${s.padEnd(10)} ${f(connections)} ${f(r.rps)} ${f(r.rps / bare.rps, 2)} ${f(r.p50, 1)} ${f(r.p99, 1)}             ${f(r.cpuUsPerReq)} ${f(r.loadCpuUsPerReq)} ${f(machineUs(bare) / machineUs(r), 2)} ${f(r.peakRss / 2 ** 20)} ${f(r.non2xx)} ${f(r.errors)}`);
      report.figures({ part: 'sweep', scenario: s, connections }, [
        ['max req/s', r.rps, 'req/s'], ['req/s ratio to bare', r.rps / bare.rps, '×'], ['p50 at max', r.p50, 'ms'], ['p99 at max', r.p99, 'ms'],
        ['server CPU per request', r.cpuUsPerReq, 'µs'], ['load generator CPU per request', r.loadCpuUsPerReq, 'µs'],
        ['CPU ceiling', machineUs(bare) / machineUs(r), '×'], ['peak RSS', r.peakRss / 2 ** 20, 'MB'], ['failed', r.non2xx + r.errors, 'requests'],
      ]);
    }
  }
  const ok = (b: boolean) => (b ? 'ok' : 'MISSED');
  for (const c of [50, 256].filter((n) => counts.includes(n))) {
    const ratio = results.get(`standalone@${c}`)!.rps / results.get(`bare@${c}`)!.rps;
    report.text(`standalone at ${c}: ${ratio.toFixed(2)}× bare (target ≥ 0.70: ${ok(ratio >= 0.7)})`);
  }
  for (const c of counts) {
    const ratio = results.get(`embedded@${c}`)!.rps / results.get(`bare@${c}`)!.rps;
    report.text(`ingest alone (embedded log) at ${c}: ${ratio.toFixed(2)}× bare (target ≥ 0.80: ${ok(ratio >= 0.8)}), RSS ${(results.get(`embedded@${c}`)!.peakRss / 2 ** 20).toFixed(0)} MB (target ≤ 200: ${ok(results.get(`embedded@${c}`)!.peakRss <= 200 * 2 ** 20)})`);
  }
  if (counts.includes(256) && counts.includes(1000)) {
    const fall = results.get('standalone@1000')!.rps / results.get('standalone@256')!.rps;
    report.text(`standalone 1,000 vs 256 connections: ${fall.toFixed(2)}× (target: no fall, ≥ ~0.95 given noise: ${ok(fall >= 0.95)})`);
  }
  report.figures({ part: 'sweep', scenario: 'standalone', rate: Math.round(at80.rps) }, [
    ['p50 at 80 %', at80.p50, 'ms'], ['p99 at 80 %', at80.p99, 'ms'],
    ['event-loop delay p99', loopDelay.p99, 'ms'], ['event-loop delay max', loopDelay.max, 'ms'],
  ]);
  report.figure('all accepted events queryable after', visible.ms, 'ms', { part: 'sweep', scenario: 'standalone', accepted: visible.accepted, stored: visible.stored });
  report.text(`standalone at 80 % of max (${Math.round(at80.rps)} req/s): p50 ${at80.p50} ms, p99 ${at80.p99} ms (target ≤ 25: ${ok(at80.p99 <= 25)}), non-2xx ${at80.non2xx}`);
  report.text(`event-loop delay of npm start's process during that run: p99 ${loopDelay.p99.toFixed(1)} ms, max ${loopDelay.max.toFixed(1)} ms (how long the thread was held at a time)`);
  report.text(`after the load: ${visible.stored} of ${visible.accepted} accepted events queryable after ${visible.ms} ms (target ≤ 2000: ${ok(visible.stored >= visible.accepted && visible.ms <= 2000)})`);
  report.text(`load average after each connection count: ${loadAvg.join('; ')} (${os.cpus().length} CPUs, shared machine)`);
}
