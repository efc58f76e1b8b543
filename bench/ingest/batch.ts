/**
 * Batch route benchmark, run by `npm run bench:ingest` after the single-event scenarios (or
 * alone: `tsx scripts/bench-ingest-batch.ts`). One child server (the real ingest plugin on the
 * embedded durable log) is loaded alternately through POST /api/analytics/track (one event per
 * request) and POST /api/analytics/batch (20 events per request, what the tracker sends), in
 * the same run. A 200 means every event of the request is durable, so events/s durable =
 * 2xx requests/s × events per request. Targets: batch ≥ 5 × single events/s, RSS ≤ 200 MB.
 *
 * Env: BENCH_DURATION (s per measurement, default 10), BENCH_ROUNDS (default 3),
 * BENCH_CONNECTIONS (default 64). Internal: `--serve` makes this file the child server, run as a
 * bundle with plain node like the service itself (bench-ingest.ts explains why).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { bundleScript } from './build.js';

const thisFile = fileURLToPath(import.meta.url);
const BATCH_SIZE = 20;

async function serve(): Promise<void> {
  const { loadConfig, createLogger } = await import('@chatlytics/core');
  const { createEmbeddedBus } = await import('@chatlytics/bus');
  const { ingestApp, limitHeapGrowth } = await import('@chatlytics/ingest');
  // The service's entry point sets its heap policy first (services/ingest/src/heap-policy.ts); so does this stand-in.
  limitHeapGrowth();
  const config = loadConfig({ ...process.env, TRACK_RATE_LIMIT_PER_MINUTE: '1000000000' });
  const log = createLogger('warn', 'bench-batch');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-batch-'));
  const bus = await createEmbeddedBus({ dir, log });
  const app = Fastify({ logger: false });
  await app.register(ingestApp, { config, bus, clientHashSecret: 'bench-secret-of-some-length' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.on('message', async (msg: string) => {
    if (msg === 'rss') process.send!({ rss: process.memoryUsage().rss });
    if (msg === 'stop') {
      await app.close();
      await bus.close();
      await fs.rm(dir, { recursive: true, force: true });
      process.exit(0);
    }
  });
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
}

/** Tracker-shaped events: distinct tokens and ids, a mix of page, chat and purchase events. */
function trackerEvents(n: number): object[] {
  return Array.from({ length: n }, (_, i) => {
    const token = `bench_${i.toString(36).padStart(14, '0')}${i % 2}`;
    const data: Record<string, unknown> = { chatbot_id: `bot-${i % 20}`, event_id: `0190${i.toString(16).padStart(4, '0')}-0000-7000-8000-${i.toString(16).padStart(12, '0')}` };
    if (i % 10 === 9) data.items = [{ item_id: `sku-${i % 300}`, value: 19.9, quantity: 1, currency: 'EUR' }];
    else data.url = `https://shop-${i % 20}.example/products/${i % 500}`;
    return { event: ['visitor', 'message_sent', 'bot_open'][i % 3], token, data, ab_test: i % 4 === 0 };
  });
}

const started = new Set<ChildProcess>();

async function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--enable-source-maps', await bundleScript(thisFile), '--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, LOG_LEVEL: 'warn' } });
  started.add(child);
  child.once('exit', () => started.delete(child));
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

const rssOf = (child: ChildProcess) => new Promise<number>((resolve) => {
  child.once('message', (m: { rss: number }) => resolve(m.rss));
  child.send('rss');
});

interface Run { eventsPerSec: number; rps: number; p99: number; failed: number; peakRss: number }

async function load(child: ChildProcess, port: number, route: 'single' | 'batch', seconds: number, connections: number): Promise<Run> {
  const events = trackerEvents(400);
  const bodies = route === 'single'
    ? events.map((e) => JSON.stringify(e))
    : Array.from({ length: events.length / BATCH_SIZE }, (_, i) => JSON.stringify({ events: events.slice(i * BATCH_SIZE, (i + 1) * BATCH_SIZE) }));
  const urlPath = route === 'single' ? '/api/analytics/track' : '/api/analytics/batch';
  let peakRss = await rssOf(child);
  let done = false;
  const sampling = (async () => {
    while (!done) {
      peakRss = Math.max(peakRss, await rssOf(child));
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`, connections, duration: seconds,
    requests: bodies.map((body) => ({ method: 'POST', path: urlPath, headers: { 'content-type': 'text/plain;charset=UTF-8' }, body })),
  });
  done = true;
  await sampling;
  const ok = result['2xx'] / Math.max(1, seconds);
  return {
    eventsPerSec: ok * (route === 'single' ? 1 : BATCH_SIZE),
    rps: result.requests.average,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    peakRss,
  };
}

/** The batch part of `npm run bench:ingest`: prints its table and verdicts. */
export async function benchBatchRoute(): Promise<void> {
  const seconds = Number(process.env.BENCH_DURATION ?? 10);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const connections = Number(process.env.BENCH_CONNECTIONS_BATCH ?? 64);
  const { child, port } = await startServer();
  const runs: Record<'single' | 'batch', Run[]> = { single: [], batch: [] };
  try {
    await load(child, port, 'single', 2, connections);
    await load(child, port, 'batch', 2, connections);
    // Alternating rounds on one server: outside load on the shared machine hits both alike.
    for (let round = 0; round < rounds; round++) {
      for (const route of ['single', 'batch'] as const) {
        process.stderr.write(`batch bench: round ${round + 1}, ${route}...\n`);
        runs[route].push(await load(child, port, route, seconds, connections));
      }
    }
  } finally {
    child.send('stop');
    await new Promise((r) => child.once('exit', r));
  }
  const median = (rs: Run[]) => [...rs].sort((a, b) => a.eventsPerSec - b.eventsPerSec)[Math.floor(rs.length / 2)];
  const single = median(runs.single);
  const batch = median(runs.batch);
  const rssMb = Math.max(...runs.single.map((r) => r.peakRss), ...runs.batch.map((r) => r.peakRss)) / 2 ** 20;
  console.log(`\nbatch route vs single route, embedded log, ${connections} connections, ${seconds} s per run, median of ${rounds} alternating rounds`);
  for (const [name, r] of [['single', single], [`batch×${BATCH_SIZE}`, batch]] as const) {
    console.log(`${name.padEnd(9)} events/s durable ${r.eventsPerSec.toFixed(0).padStart(8)}  req/s ${r.rps.toFixed(0).padStart(7)}  p99 ${r.p99} ms  failed ${r.failed}`
      + `  (rounds: ${runs[name === 'single' ? 'single' : 'batch'].map((x) => x.eventsPerSec.toFixed(0)).join(', ')})`);
  }
  const ratio = batch.eventsPerSec / single.eventsPerSec;
  console.log(`batch: events/s ratio to single ${ratio.toFixed(2)} (target ≥ 5: ${ratio >= 5 ? 'ok' : 'MISSED'}), peak RSS ${rssMb.toFixed(0)} MB (target ≤ 200: ${rssMb <= 200 ? 'ok' : 'MISSED'})`);
  console.log(`machine load average during the run: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs`);
}

if (process.argv[2] === '--serve') {
  serve().catch((err) => { console.error(err); process.exit(1); });
} else if (process.argv[1] === thisFile) {
  benchBatchRoute().catch((err) => {
    console.error(err);
    for (const c of started) c.kill('SIGKILL');
    process.exit(1);
  });
}
