/**
 * Ingest throughput benchmark (`npm run bench:ingest`). One run measures, side by side:
 *   (a) baseline: a bare Fastify route answering {success:true}, no validation, no bus;
 *   (b) the real ingest plugin on the embedded durable log (temp dir, fsync'd group commits);
 *   (c) the real ingest plugin on Kafka (KAFKA_BROKERS, or a single local broker from scripts/kafka/run.sh);
 *   (d) `standalone`: the all-in-one sweep of bench-ingest-allinone.ts (npm start's process);
 *   (e) `nobus`: the real ingest plugin on a bus that acknowledges at once and keeps nothing. Not a
 *       product mode: the ceiling any bus can reach, since a real one only adds its own cost.
 * Each server runs in its own child process so autocannon's CPU is not the server's; the
 * baseline is measured in the same run, on the same machine state, so the ratio means something.
 * The child runs this file bundled by scripts/build.ts with plain node, as `npm run start:ingest`
 * runs the service: no TypeScript loader in the measured process (its heap would count in RSS).
 * Per scenario: max throughput (closed loop: req/s, p50/p99, CPU per request of the server, of
 * the load generator and, on Kafka, of the broker), then p50/p99 at 80 % of that rate (see
 * measureAt), and peak RSS; and the CPU ceiling, the ratio to (a) that the machine's CPU per
 * request allows. Targets for the ingest alone, (b) and (c): ≥ 0.8 × (a) req/s, p99 < 25 ms at
 * 80 % of max, RSS ≤ 200 MB.
 *
 * Env: BENCH_DURATION (s per measurement, default 10), BENCH_ROUNDS (default 3),
 * BENCH_CONNECTIONS (default 256: tracking traffic is many independent browsers, and ingest's
 * round trip includes an fsync or a Kafka ack, so fewer connections would measure that latency
 * rather than the server's capacity), BENCH_SCENARIOS (comma list of
 * bare,nobus,embedded,kafka,standalone), KAFKA_BROKERS (else a local broker is started with
 * run.sh), BENCH_KAFKA_PID (the broker JVM's pid when KAFKA_BROKERS names an external one),
 * BENCH_SERVER_NODE_FLAGS (node flags for the servers under test, e.g. `--max-old-space-size=96`),
 * BENCH_HEAP_POLICY=off (the ingest servers without the service's heap policy, to compare).
 * Internal: `--serve <scenario>` makes this file the child server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { startKafka, type KafkaCluster } from '@chatlytics/bus/testing';
import { allInOneSweep, serveAllInOne } from './bench-ingest-allinone.js';
import { payloadMix } from './bench-ingest-payloads.js';
import { bundleScript } from './build.js';
import { machineSpeedLine } from './machine-speed.js';

type Scenario = 'bare' | 'nobus' | 'embedded' | 'kafka' | 'standalone';
const thisFile = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------- child: the server under test

async function serve(scenario: Scenario): Promise<void> {
  const { loadConfig, createLogger } = await import('@chatlytics/core');
  let app: FastifyInstance = Fastify({ logger: false });
  let closeBus = async () => {};
  let onMessage: (msg: string) => Promise<unknown> | undefined = () => undefined;
  if (scenario === 'standalone') {
    ({ app, close: closeBus, onMessage } = await serveAllInOne());
  } else if (scenario === 'bare') {
    app.post('/api/analytics/track', async () => ({ success: true }));
  } else {
    const { createEmbeddedBus, createKafkaBus } = await import('@chatlytics/bus');
    const { ingestApp, limitHeapGrowth } = await import('@chatlytics/ingest');
    // The service's own entry point sets its heap policy first; so does its stand-in here.
    if (process.env.BENCH_HEAP_POLICY !== 'off') limitHeapGrowth();
    // A benchmark is an entry point: it may read the environment. The rate limit stays on (its
    // cost is part of the route) but high enough never to trigger from one load-generator IP.
    const config = loadConfig({ ...process.env, TRACK_RATE_LIMIT_PER_MINUTE: '1000000000' });
    const log = createLogger('warn', `bench-${scenario}`);
    let bus;
    if (scenario === 'nobus') {
      bus = acknowledgingBus();
    } else if (scenario === 'embedded') {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-ingest-'));
      bus = await createEmbeddedBus({ dir, log });
      closeBus = async () => { await bus!.close(); await fs.rm(dir, { recursive: true, force: true }); };
    } else {
      const topic = `bench-ingest-${process.pid}`;
      bus = createKafkaBus({ kafka: { ...config.kafka, topic, dlqTopic: `${topic}-dlq`, groupId: `${topic}-g` }, log });
      closeBus = () => bus!.close();
      await bus.publish([{ key: 'warm', value: Buffer.from('{}') }]); // connect before measuring
    }
    await app.register(ingestApp, { config, bus, clientHashSecret: 'bench-secret-of-some-length' });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const stop = async () => {
    await app.close();
    await closeBus();
    process.exit(0);
  };
  // Run by hand (e.g. `node --cpu-prof --import=tsx scripts/bench-ingest.ts --serve embedded`
  // to profile): no IPC channel, so the port goes to stdout and SIGINT stops cleanly.
  if (!process.send) {
    console.log(`listening on ${port}`);
    process.once('SIGINT', () => void stop());
    return;
  }
  process.on('message', (msg: string) => {
    if (msg === 'stats') {
      const cpu = process.cpuUsage();
      const mem = process.memoryUsage();
      process.send!({ rss: mem.rss, heap: mem.heapTotal, external: mem.external, cpuUs: cpu.user + cpu.system });
    }
    if (msg === 'stop') void stop();
    void onMessage(msg)?.then((answer) => process.send!(answer as object));
  });
  process.send({ port });
}

/** The `nobus` scenario's bus: every publish acknowledged at once, nothing kept, nothing delivered. */
function acknowledgingBus(): import('@chatlytics/bus').EventBus {
  const nothing = async () => {};
  return {
    kind: 'embedded',
    publish: nothing,
    prepare: nothing,
    publishDeadLetter: nothing,
    consume: async () => ({ stop: nothing }),
    replay: async () => 0,
    lag: async () => 0,
    lagReport: async () => ({ partitions: [], oldestUncommittedAt: null, retentionMs: null }),
    ping: nothing,
    close: nothing,
  };
}

// ---------------------------------------------------------------- parent: load and measure

/** CPU time (user + system, µs) a process has used so far, from /proc: the Kafka broker's JVM. */
function processCpuUs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the command name), in ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return NaN;
  }
}

/** Everything this run started, stopped even when the run is interrupted (Ctrl-C, timeout). */
const started = new Set<ChildProcess>();
for (const signal of process.argv[2] === '--serve' ? [] : ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of started) child.kill('SIGKILL');
    process.exit(130);
  });
}

/** This file as a bundle (see the header), built once per run. */
let bundle: Promise<string> | undefined;

async function startServer(scenario: Scenario, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  bundle ??= bundleScript(thisFile);
  const flags = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, '--enable-source-maps', await bundle, '--serve', scenario], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env });
  started.add(child);
  child.once('exit', () => started.delete(child));
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`${scenario} server exited with ${code}`)));
  });
}

interface Stats { rss: number; heap: number; external: number; cpuUs: number }

function askStats(child: ChildProcess): Promise<Stats> {
  return new Promise((resolve) => {
    child.once('message', (m: Stats) => resolve(m));
    child.send('stats');
  });
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Server CPU (user + system) per request: unlike req/s, barely affected by other load on a shared machine. */
  cpuUsPerReq: number;
  /** The load generator's CPU per request (autocannon runs in this process): it shares the cores with the server. */
  loadCpuUsPerReq: number;
  /** The Kafka broker's CPU per request (kafka scenario, when its pid is known), else 0. */
  brokerCpuUsPerReq: number;
  peakRss: number;
  /** The V8 heap and the memory outside it (Buffers) when RSS peaked: where the RSS goes. */
  heapAtPeakMb: number;
  externalAtPeakMb: number;
}

/** The broker JVM's pid for the kafka scenario: the local cluster's node 1, or BENCH_KAFKA_PID. */
let brokerPid: number | undefined = process.env.BENCH_KAFKA_PID ? Number(process.env.BENCH_KAFKA_PID) : undefined;

/** One autocannon run against a child server, sampling the child's RSS (every 250 ms) and CPU meanwhile. */
async function load(child: ChildProcess, port: number, bodies: string[], seconds: number, connections: number, overallRate?: number, broker?: number): Promise<Run> {
  const before = await askStats(child);
  const loadBefore = process.cpuUsage();
  const brokerBefore = broker === undefined ? NaN : processCpuUs(broker);
  let atPeak = before;
  let done = false;
  const sampling = (async () => {
    while (!done) {
      const stats = await askStats(child);
      if (stats.rss > atPeak.rss) atPeak = stats;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    overallRate,
    // autocannon 9's coordinated-omission correction uses Math.ceil(1 / per-connection rate)
    // as the expected interval: 1 ms whatever the rate, so every response slower than 1 ms is
    // padded with fabricated samples. The raw latencies are the honest figure.
    ignoreCoordinatedOmission: overallRate !== undefined,
    requests: bodies.map((body) => ({ method: 'POST', path: '/api/analytics/track', headers: { 'content-type': 'application/json' }, body })),
  });
  done = true;
  const loadCpu = process.cpuUsage(loadBefore);
  const brokerUs = broker === undefined ? 0 : processCpuUs(broker) - brokerBefore;
  await sampling;
  const after = await askStats(child);
  if (after.rss > atPeak.rss) atPeak = after;
  const requests = Math.max(1, result.requests.total);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuUsPerReq: (after.cpuUs - before.cpuUs) / requests,
    loadCpuUsPerReq: (loadCpu.user + loadCpu.system) / requests,
    brokerCpuUsPerReq: brokerUs / requests,
    peakRss: atPeak.rss,
    heapAtPeakMb: Math.round(atPeak.heap / 2 ** 20),
    externalAtPeakMb: Math.round(atPeak.external / 2 ** 20),
  };
}

async function main(): Promise<void> {
  console.log(machineSpeedLine());
  const seconds = Number(process.env.BENCH_DURATION ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 256);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const wanted = (process.env.BENCH_SCENARIOS ?? 'bare,nobus,embedded,kafka,standalone').split(',') as Scenario[];
  // autocannon builds every request for every connection up front: a few hundred bodies keep
  // that instant even at 256 connections, and still give hundreds of distinct tokens.
  const bodies = payloadMix(400);
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  let local: KafkaCluster | undefined;
  if (wanted.includes('kafka') && !process.env.KAFKA_BROKERS) {
    local = await startKafka({ brokers: 1 });
    env.KAFKA_BROKERS = local.brokers;
    brokerPid = local.nodePid(1);
  }
  const scenarios = wanted.filter((s) => s !== 'standalone');
  const results: Record<string, { max: Run; at80: Run; rssMb: number; heapMb: number }> = {};
  try {
    const servers = new Map<Scenario, { child: ChildProcess; port: number }>();
    for (const scenario of scenarios) {
      const { child, port } = await startServer(scenario, env);
      servers.set(scenario, { child, port });
      await load(child, port, bodies, 2, connections); // warm-up: JIT, connection pools, first segment
    }
    const measure = (scenario: Scenario) => {
      const { child, port } = servers.get(scenario)!;
      process.stderr.write(`measuring ${scenario} at max...\n`);
      return load(child, port, bodies, seconds, connections, undefined, scenario === 'kafka' ? brokerPid : undefined);
    };
    const measureAt = (scenario: Scenario, rate: number) => {
      const { child, port } = servers.get(scenario)!;
      // autocannon paces per connection per second: each connection fires its quota at the
      // start of every second, one request at a time. Enough connections to carry the rate at
      // 20 ms per request (Little's law), not hundreds: otherwise each second starts with a
      // burst of hundreds of requests at once and the run measures that burst, not 80 % load.
      const pacedConnections = Math.min(connections, Math.max(8, Math.ceil(rate * 0.02)));
      process.stderr.write(`measuring ${scenario} at ${rate} req/s over ${pacedConnections} connections...\n`);
      return load(child, port, bodies, seconds, pacedConnections, rate, scenario === 'kafka' ? brokerPid : undefined);
    };
    // The machine may be shared: rounds alternate the scenarios so a burst of outside load
    // hits all of them alike, and the median round of each is kept.
    const maxRuns = new Map<Scenario, Run[]>(scenarios.map((s) => [s, []]));
    for (let round = 0; round < rounds; round++) {
      for (const scenario of scenarios) maxRuns.get(scenario)!.push(await measure(scenario));
    }
    for (const scenario of scenarios) {
      const runs = maxRuns.get(scenario)!.sort((a, b) => a.rps - b.rps);
      const max = runs[Math.floor(runs.length / 2)];
      const at80 = await measureAt(scenario, Math.max(1, Math.floor(max.rps * 0.8)));
      const peak = [...runs, at80].reduce((a, b) => (b.peakRss > a.peakRss ? b : a));
      results[scenario] = { max, at80, rssMb: peak.peakRss / 2 ** 20, heapMb: peak.heapAtPeakMb };
      console.log(`${scenario}: max req/s per round ${runs.map((r) => Math.round(r.rps)).join(', ')}; ${JSON.stringify(results[scenario])}`);
    }
    for (const { child } of servers.values()) {
      child.send('stop');
      await new Promise((r) => child.once('exit', r));
    }
  } finally {
    await local?.stop();
  }

  const f = (n: number, d = 0) => n.toFixed(d).padStart(8);
  console.log(`\n${connections} connections, ${seconds} s per run, median of ${rounds} rounds at max`);
  console.log('scenario   max req/s  p50 ms  p99 ms  CPU µs/req: server load broker | 80% req/s  p50 ms  p99 ms | peak RSS MB (V8 heap) | non-2xx errors');
  for (const [name, r] of Object.entries(results)) {
    console.log(`${name.padEnd(9)} ${f(r.max.rps)} ${f(r.max.p50, 1)} ${f(r.max.p99, 1)}     ${f(r.max.cpuUsPerReq, 0)} ${f(r.max.loadCpuUsPerReq, 0)} ${f(r.max.brokerCpuUsPerReq, 0)} | `
      + `${f(r.at80.rps)} ${f(r.at80.p50, 1)} ${f(r.at80.p99, 1)} | ${f(r.rssMb, 0)} (${r.heapMb})    | ${r.max.non2xx + r.at80.non2xx} ${r.max.errors + r.at80.errors}`);
  }
  const bare = results.bare?.max;
  const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  // The machine's CPU per request: the server, the load generator sharing its cores and, on
  // Kafka, the broker. With every core busy, req/s is the cores divided by it, so the bare run's
  // figure over the scenario's is the ratio the cores allow (the "CPU ceiling").
  const machineUs = (r: Run) => r.cpuUsPerReq + r.loadCpuUsPerReq + r.brokerCpuUsPerReq;
  for (const name of ['nobus', 'embedded', 'kafka'] as const) {
    const r = results[name];
    if (!r) continue;
    const ratio = bare ? r.max.rps / bare.rps : NaN;
    const ceiling = bare ? machineUs(bare) / machineUs(r.max) : NaN;
    console.log(`${name}: req/s ratio to bare ${ratio.toFixed(2)} (target for the ingest alone ≥ 0.80: ${verdict(ratio >= 0.8)}; `
      + `CPU ceiling ${ceiling.toFixed(2)}: machine CPU per request ${machineUs(r.max).toFixed(0)} µs against bare ${bare ? machineUs(bare).toFixed(0) : '?'} µs), `
      + `p99 at 80% ${r.at80.p99} ms (target < 25: ${verdict(r.at80.p99 < 25)}), RSS ${r.rssMb.toFixed(0)} MB (target ≤ 200: ${verdict(r.rssMb <= 200)})`);
  }
  console.log(`machine load average during the run: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs`);
  if (wanted.includes('standalone')) {
    await allInOneSweep({ startServer: (s) => startServer(s, env), load: (c, p, ...rest) => load(c, p, bodies, ...rest), seconds, rounds });
  }
}

if (process.argv[2] === '--serve') {
  serve(process.argv[3] as Scenario).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    console.error(err);
    for (const child of started) child.kill('SIGKILL');
    process.exit(1);
  });
}
