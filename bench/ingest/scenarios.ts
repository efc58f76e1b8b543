/**
 * The tracking route's throughput (the first part of `npm run bench:ingest`). One run measures,
 * side by side, the scenarios of server.ts: `bare` (the baseline: a bare Fastify route), the real
 * ingest plugin on the embedded log (`embedded`), on Kafka (`kafka`: KAFKA_BROKERS, or a single
 * local broker from scripts/kafka/run.sh), on a bus that acknowledges at once (`nobus`), and
 * `standalone`: the all-in-one sweep of allinone.ts (npm start's process).
 * Each server runs in its own child process so autocannon's CPU is not the server's; the
 * baseline is measured in the same run, on the same machine state, so the ratio means something.
 * Per scenario: max throughput (closed loop: req/s, p50/p99, CPU per request of the server, of
 * the load generator and, on Kafka, of the broker), then p50/p99 at 80 % of that rate, and peak
 * RSS; and the CPU ceiling, the ratio to `bare` that the machine's CPU per request allows.
 * Targets for the ingest alone (embedded, kafka): ≥ 0.8 × bare req/s, p99 < 25 ms at 80 % of
 * max, RSS ≤ 200 MB.
 *
 * --connections defaults to 256: tracking traffic is many independent browsers, and ingest's
 * round trip includes an fsync or a Kafka ack, so fewer connections would measure that latency
 * rather than the server's capacity.
 */
import { startKafka, type KafkaCluster } from '@chatlytics/bus/testing';
import { opt, type Values } from '../lib/args.js';
import { defineBench } from '../lib/bench.js';
import { stopChild, type Started } from '../lib/child.js';
import { machineLoad } from '../lib/machine.js';
import { alternate } from '../lib/pairs.js';
import type { Report } from '../lib/report.js';
import { medianBy } from '../lib/stats.js';
import { allInOneSweep, SWEEP_OPTIONS } from './allinone.js';
import { RUN_OPTIONS, load, pacedConnections, startServer, trackRequests, type LoadRun, type ServerOptions } from './load.js';
import { payloadMix } from './payloads.js';
import type { Scenario } from './server.js';

const SCENARIO_OPTIONS = {
  ...RUN_OPTIONS,
  ...SWEEP_OPTIONS,
  connections: opt.number(256, 'connections at max throughput', { min: 1, integer: true }),
  scenarios: opt.list(['bare', 'nobus', 'embedded', 'kafka', 'standalone'], 'scenarios to measure (server.ts)'),
  'kafka-pid': opt.number(undefined, 'the broker JVM\'s pid when KAFKA_BROKERS names an external one (its CPU per request)', { integer: true }),
  'server-node-flags': opt.string('', 'node flags of the servers under test, e.g. --server-node-flags=--max-old-space-size=96'),
  'heap-policy': opt.choice(['on', 'off'], 'on', 'the ingest servers with the service\'s heap policy, or without it to compare'),
};

export default defineBench({ summary: 'The tracking route on the embedded log, on Kafka and on no bus, against a bare Fastify route; then npm start\'s process in a sweep of connection counts.', options: SCENARIO_OPTIONS, run: benchScenarios });

interface Result { max: LoadRun; at80: LoadRun; rssMb: number; heapMb: number }

async function benchScenarios(o: Values<typeof SCENARIO_OPTIONS>, report: Report): Promise<void> {
  const wanted = o.scenarios as Scenario[];
  // autocannon builds every request for every connection up front: a few hundred bodies keep
  // that instant even at 256 connections, and still give hundreds of distinct tokens.
  const requests = trackRequests(payloadMix(400));
  const server: ServerOptions = { heapPolicy: o['heap-policy'] === 'on', nodeFlags: o['server-node-flags'].split(' ').filter(Boolean), env: {} };
  let brokerPid = o['kafka-pid'];
  let local: KafkaCluster | undefined;
  if (wanted.includes('kafka') && !process.env.KAFKA_BROKERS) {
    local = await startKafka({ brokers: 1 });
    server.env!.KAFKA_BROKERS = local.brokers;
    brokerPid = local.nodePid(1);
  }
  const scenarios = wanted.filter((s) => s !== 'standalone');
  const results: Record<string, Result> = {};
  try {
    const servers = new Map<Scenario, Started>();
    for (const scenario of scenarios) {
      servers.set(scenario, await startServer(scenario, server));
      await load(servers.get(scenario)!, requests, { seconds: 2, connections: o.connections }); // warm-up: JIT, connection pools, first segment
    }
    const broker = (scenario: Scenario) => (scenario === 'kafka' ? brokerPid : undefined);
    const measure = (scenario: Scenario) => {
      report.text(`measuring ${scenario} at max...`);
      return load(servers.get(scenario)!, requests, { seconds: o.seconds, connections: o.connections, brokerPid: broker(scenario) });
    };
    const measureAt = (scenario: Scenario, rate: number) => {
      const connections = pacedConnections(rate, o.connections);
      report.text(`measuring ${scenario} at ${rate} req/s over ${connections} connections...`);
      return load(servers.get(scenario)!, requests, { seconds: o.seconds, connections, rate, brokerPid: broker(scenario) });
    };
    // Rounds alternate the scenarios, so a burst of outside load on a shared machine hits all of
    // them alike; the median round of each is kept.
    const maxRuns = await alternate(o.rounds, Object.fromEntries(scenarios.map((s) => [s, () => measure(s)])) as Record<Scenario, () => Promise<LoadRun>>);
    for (const scenario of scenarios) {
      const runs = maxRuns[scenario];
      const max = medianBy(runs, (r) => r.rps);
      const at80 = await measureAt(scenario, Math.max(1, Math.floor(max.rps * 0.8)));
      const peak = [...runs, at80].reduce((a, b) => (b.peakRss > a.peakRss ? b : a));
      results[scenario] = { max, at80, rssMb: peak.peakRss / 2 ** 20, heapMb: peak.heapAtPeakMb };
      report.text(`${scenario}: max req/s per round ${runs.map((r) => Math.round(r.rps)).join(', ')}; ${JSON.stringify(results[scenario])}`);
      figures(report, scenario, results[scenario], { connections: o.connections, seconds: o.seconds, rounds: o.rounds, perRound: runs.map((r) => Math.round(r.rps)) });
    }
    for (const { child } of servers.values()) await stopChild(child);
  } finally {
    await local?.stop();
  }
  verdicts(report, results, o.connections, o.seconds, o.rounds);
  if (wanted.includes('standalone')) {
    await allInOneSweep({ sweep: o.sweep, seconds: o.seconds, rounds: o.rounds, server, requests }, report);
  }
}

function figures(report: Report, scenario: string, r: Result, context: { connections: number; seconds: number; rounds: number; perRound: number[] }): void {
  report.figures({ scenario, ...context }, [
    ['max req/s', r.max.rps, 'req/s'], ['p50 at max', r.max.p50, 'ms'], ['p99 at max', r.max.p99, 'ms'],
    ['server CPU per request', r.max.cpuUsPerReq, 'µs'], ['load generator CPU per request', r.max.loadCpuUsPerReq, 'µs'],
    ['broker CPU per request', r.max.brokerCpuUsPerReq, 'µs'],
  ]);
  report.figures({ scenario, rate: Math.round(r.at80.rps) }, [['p50 at 80 %', r.at80.p50, 'ms'], ['p99 at 80 %', r.at80.p99, 'ms']]);
  report.figures({ scenario }, [['peak RSS', r.rssMb, 'MB'], ['failed', r.max.non2xx + r.at80.non2xx + r.max.errors + r.at80.errors, 'requests']]);
}

function verdicts(report: Report, results: Record<string, Result>, connections: number, seconds: number, rounds: number): void {
  const f = (n: number, d = 0) => n.toFixed(d).padStart(8);
  report.text(`\n${connections} connections, ${seconds} s per run, median of ${rounds} rounds at max`,
    'scenario   max req/s  p50 ms  p99 ms  CPU µs/req: server load broker | 80% req/s  p50 ms  p99 ms | peak RSS MB (V8 heap) | non-2xx errors');
  for (const [name, r] of Object.entries(results)) {
    report.text(`${name.padEnd(9)} ${f(r.max.rps)} ${f(r.max.p50, 1)} ${f(r.max.p99, 1)}     ${f(r.max.cpuUsPerReq, 0)} ${f(r.max.loadCpuUsPerReq, 0)} ${f(r.max.brokerCpuUsPerReq, 0)} | `
      + `${f(r.at80.rps)} ${f(r.at80.p50, 1)} ${f(r.at80.p99, 1)} | ${f(r.rssMb, 0)} (${r.heapMb})    | ${r.max.non2xx + r.at80.non2xx} ${r.max.errors + r.at80.errors}`);
  }
  const bare = results.bare?.max;
  const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  // The machine's CPU per request: the server, the load generator sharing its cores and, on
  // Kafka, the broker. With every core busy, req/s is the cores divided by it, so the bare run's
  // figure over the scenario's is the ratio the cores allow (the "CPU ceiling").
  const machineUs = (r: LoadRun) => r.cpuUsPerReq + r.loadCpuUsPerReq + r.brokerCpuUsPerReq;
  for (const name of ['nobus', 'embedded', 'kafka'] as const) {
    const r = results[name];
    if (!r) continue;
    const ratio = bare ? r.max.rps / bare.rps : NaN;
    const ceiling = bare ? machineUs(bare) / machineUs(r.max) : NaN;
    report.text(`${name}: req/s ratio to bare ${ratio.toFixed(2)} (target for the ingest alone ≥ 0.80: ${verdict(ratio >= 0.8)}; `
      + `CPU ceiling ${ceiling.toFixed(2)}: machine CPU per request ${machineUs(r.max).toFixed(0)} µs against bare ${bare ? machineUs(bare).toFixed(0) : '?'} µs), `
      + `p99 at 80% ${r.at80.p99} ms (target < 25: ${verdict(r.at80.p99 < 25)}), RSS ${r.rssMb.toFixed(0)} MB (target ≤ 200: ${verdict(r.rssMb <= 200)})`);
    report.figures({ scenario: name, of: `${name} ÷ bare` }, [['req/s ratio to bare', ratio, '×'], ['CPU ceiling', ceiling, '×']]);
  }
  const { loadAverage, cpus } = machineLoad();
  report.text(`machine load average during the run: ${loadAverage.join(' ')} on ${cpus} CPUs`);
}
