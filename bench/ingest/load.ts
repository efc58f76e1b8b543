/**
 * Load on the ingest benches' server children (server.ts): autocannon in this process, the
 * child's memory and CPU sampled meanwhile over IPC, the Kafka broker's CPU from /proc.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { bundleScript } from '../../scripts/build.js';
import { opt } from '../lib/args.js';
import { childStats, startChild, type ChildStats, type Started } from '../lib/child.js';
import { taskCpu } from '../lib/proc.js';
import type { Scenario } from './server.js';

/** The options every ingest bench shares. */
export const RUN_OPTIONS = {
  seconds: opt.number(10, 'seconds per measurement', { min: 1 }),
  rounds: opt.number(3, 'rounds: each measures every side once, alternately; the median round of each side is kept', { min: 1, integer: true }),
};

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server.ts');
/** server.ts as a bundle (see its header), built once per run. */
let bundle: Promise<string> | undefined;

export interface ServerOptions {
  /** The service's heap policy (default on). */
  heapPolicy?: boolean;
  /** Node flags of the server process, e.g. `--max-old-space-size=96`. */
  nodeFlags?: string[];
  /** On top of this process's environment (and LOG_LEVEL=warn). */
  env?: NodeJS.ProcessEnv;
}

/** A scenario's server in a child process, run from the bundle with plain node. */
export async function startServer(scenario: Scenario, o: ServerOptions = {}): Promise<Started> {
  bundle ??= bundleScript(SERVER, 'ingest-server');
  const args = [...(o.nodeFlags ?? []), '--enable-source-maps', await bundle, scenario, ...(o.heapPolicy === false ? ['--heap-policy', 'off'] : [])];
  return startChild(args, { label: scenario, env: { ...process.env, LOG_LEVEL: 'warn', ...o.env } });
}

/** POSTs of `bodies` to a tracking route, as autocannon takes them. */
export const trackRequests = (bodies: string[], headers: Record<string, string> = { 'content-type': 'application/json' }, urlPath = '/api/analytics/track'): autocannon.Request[] =>
  bodies.map((body) => ({ method: 'POST', path: urlPath, headers, body }));

/**
 * Connections for a run paced at `rate` req/s. autocannon paces per connection per second: each
 * connection fires its quota at the start of every second, one request at a time. Enough
 * connections to carry the rate at `msPerRequest` (Little's law), not hundreds: otherwise each
 * second starts with a burst of hundreds of requests at once and the run measures that burst.
 */
export const pacedConnections = (rate: number, cap: number, msPerRequest = 20): number =>
  Math.min(cap, Math.max(8, Math.ceil(rate * (msPerRequest / 1000))));

export interface LoadOptions {
  seconds: number;
  connections: number;
  /** Requests per second over all connections (autocannon's overallRate); unset: as fast as answered. */
  rate?: number;
  /** The Kafka broker JVM's pid, whose CPU per request is measured too. */
  brokerPid?: number;
  /** Sample the server's RSS every 250 ms (default); off, only its CPU is read, before and after. */
  sampleRss?: boolean;
}

export interface LoadRun {
  rps: number;
  p50: number;
  p99: number;
  /** Requests sent (autocannon's total). */
  requests: number;
  /** Requests answered 2xx. */
  ok: number;
  non2xx: number;
  errors: number;
  /** Server CPU (user + system) per request: unlike req/s, barely affected by other load on a shared machine. */
  cpuUsPerReq: number;
  /** The load generator's CPU per request (autocannon runs in this process): it shares the cores with the server. */
  loadCpuUsPerReq: number;
  /** The Kafka broker's CPU per request (when its pid is given), else 0. */
  brokerCpuUsPerReq: number;
  peakRss: number;
  /** The V8 heap and the memory outside it (Buffers) when RSS peaked: where the RSS goes. */
  heapAtPeakMb: number;
  externalAtPeakMb: number;
}

/** One autocannon run against a server child, sampling its RSS (every 250 ms) and CPU meanwhile. */
export async function load(server: Started, requests: autocannon.Request[], o: LoadOptions): Promise<LoadRun> {
  const { child, port } = server;
  const before = await childStats(child);
  const loadBefore = process.cpuUsage();
  const brokerCpu = () => (o.brokerPid === undefined ? NaN : taskCpu(o.brokerPid)?.us ?? NaN);
  const brokerBefore = brokerCpu();
  let atPeak: ChildStats = before;
  let done = false;
  const sampling = (async () => {
    while (!done && o.sampleRss !== false) {
      const stats = await childStats(child);
      if (stats.rss > atPeak.rss) atPeak = stats;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: o.connections,
    duration: o.seconds,
    overallRate: o.rate,
    // autocannon 9's coordinated-omission correction uses Math.ceil(1 / per-connection rate)
    // as the expected interval: 1 ms whatever the rate, so every response slower than 1 ms is
    // padded with fabricated samples. The raw latencies are the honest figure.
    ignoreCoordinatedOmission: o.rate !== undefined,
    requests,
  });
  done = true;
  const loadCpu = process.cpuUsage(loadBefore);
  const brokerUs = o.brokerPid === undefined ? 0 : brokerCpu() - brokerBefore;
  await sampling;
  const after = await childStats(child);
  if (after.rss > atPeak.rss) atPeak = after;
  const total = Math.max(1, result.requests.total);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuUsPerReq: (after.cpuUs - before.cpuUs) / total,
    loadCpuUsPerReq: (loadCpu.user + loadCpu.system) / total,
    brokerCpuUsPerReq: brokerUs / total,
    peakRss: atPeak.rss,
    heapAtPeakMb: Math.round(atPeak.heap / 2 ** 20),
    externalAtPeakMb: Math.round(atPeak.external / 2 ** 20),
  };
}
