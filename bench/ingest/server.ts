/**
 * The server under test of the ingest benches, one child process per scenario
 * (`node server.js <scenario> [--heap-policy off]`, spoken to as bench/lib/child.ts says):
 *   bare        a bare Fastify route answering {success:true}, no validation, no bus;
 *   embedded    the real ingest plugin on the embedded durable log (temp dir, fsync'd group commits),
 *               with the orders routes (POST /api/orders) as the ingest service registers them,
 *               their credentials those of one chatbot (BENCH_ORDERS_KEY, its key);
 *   kafka       the real ingest plugin on Kafka (KAFKA_BROKERS);
 *   nobus       the real ingest plugin on a bus that acknowledges at once and keeps nothing: not a
 *               product mode, the ceiling any bus can reach, since a real one only adds its own cost;
 *   standalone  `npm start`'s application on a fresh DATA_DIR (ingest + consumer + embedded
 *               ClickHouse + PGlite in one process), which also answers 'visible' (how long until
 *               every accepted event is queryable), 'loop-delay-reset' and 'loop-delay'.
 * The benches run it bundled (scripts/build.ts) with plain node, as `npm run start:ingest` runs
 * the service: no TypeScript loader in the measured process (its heap would count in RSS).
 * `--heap-policy off` leaves out the service's heap policy, to compare.
 *
 * To profile the ingest service: `node --cpu-prof --import=tsx bench/ingest/server.ts embedded`
 * prints its port; load it (autocannon), stop it with Ctrl-C, which writes the profile; then
 * `npx tsx scripts/cpuprofile-top.ts <file>`.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import type { EventBus } from '@chatlytics/bus';
import { serveChild } from '../lib/child.js';

const SCENARIOS = ['bare', 'nobus', 'embedded', 'kafka', 'standalone'] as const;
/** The parent imports this type only: importing a value would run this file. */
export type Scenario = (typeof SCENARIOS)[number];

/** The server of one scenario, listening on a free port. */
interface Server { app: FastifyInstance; close(): Promise<void>; onMessage?(msg: string): Promise<unknown> | undefined }

/** The `nobus` scenario's bus: every publish acknowledged at once, nothing kept, nothing delivered. */
function acknowledgingBus(): EventBus {
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

async function ingest(scenario: 'nobus' | 'embedded' | 'kafka', heapPolicy: boolean): Promise<Server> {
  const { loadConfig, createLogger } = await import('@chatlytics/core');
  const { createEmbeddedBus, createKafkaBus } = await import('@chatlytics/bus');
  const { ingestApp, limitHeapGrowth } = await import('@chatlytics/ingest');
  // The service's own entry point sets its heap policy first; so does its stand-in here.
  if (heapPolicy) limitHeapGrowth();
  // A benchmark is an entry point: it may read the environment. The rate limit stays on (its
  // cost is part of the route) but high enough never to trigger from one load-generator IP.
  const config = loadConfig({ ...process.env, TRACK_RATE_LIMIT_PER_MINUTE: '1000000000' });
  const log = createLogger('warn', `bench-${scenario}`);
  let bus: EventBus;
  let close = async () => {};
  if (scenario === 'nobus') {
    bus = acknowledgingBus();
  } else if (scenario === 'embedded') {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-ingest-'));
    const embedded = await createEmbeddedBus({ dir, log });
    bus = embedded;
    close = async () => { await embedded.close(); await fs.rm(dir, { recursive: true, force: true }); };
  } else {
    const topic = `bench-ingest-${process.pid}`;
    const kafka = createKafkaBus({ kafka: { ...config.kafka, topic, dlqTopic: `${topic}-dlq`, groupId: `${topic}-g` }, log });
    bus = kafka;
    close = () => kafka.close();
    await bus.publish([{ key: 'warm', value: Buffer.from('{}') }]); // connect before measuring
  }
  const app = Fastify({ logger: false });
  // As services/ingest/src/server.ts: one publisher shared by the tracking and the orders routes.
  const { createPublisher, ordersApp } = await import('@chatlytics/ingest');
  const publisher = createPublisher({ bus });
  await app.register(ingestApp, { config, bus, publisher, clientHashSecret: 'bench-secret-of-some-length' });
  const { ordersKeyHash } = await import('@chatlytics/events');
  const key = process.env.BENCH_ORDERS_KEY;
  const credentials = { ordersKeyHash: key ? ordersKeyHash(key) : null, ordersSigningSecret: null, shopifyWebhookSecret: null, woocommerceWebhookSecret: null };
  await app.register(ordersApp, { bus, publisher, credentials: { credentialsOf: async () => credentials } });
  return { app, close: async () => { await publisher.drain(); await close(); } };
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

/** `npm start`'s application, built the way `npm start` builds it, on a fresh DATA_DIR. */
async function standalone(): Promise<Server> {
  const { loadConfig, createLogger } = await import('@chatlytics/core');
  const { buildStandalone } = await import('@chatlytics/standalone');
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-allinone-'));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, TRACK_RATE_LIMIT_PER_MINUTE: '1000000000', DATABASE_URL: '', CLICKHOUSE_URL: '', KAFKA_BROKERS: '' });
  const runtime = await buildStandalone(config, createLogger('warn', 'bench-allinone'));
  // How long the event loop was held at a time: the consumer's work shares the thread with the
  // accept loop, and every millisecond it holds the thread is a millisecond of every request's latency.
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  return {
    app: runtime.app,
    async close() {
      await runtime.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
    onMessage: (msg) => {
      if (msg === 'visible') return timeToVisible(runtime);
      if (msg === 'loop-delay-reset') { loopDelay.reset(); return Promise.resolve({ reset: true }); }
      if (msg === 'loop-delay') return Promise.resolve({ p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 });
      return undefined;
    },
  };
}

async function serve(scenario: Scenario, heapPolicy: boolean): Promise<void> {
  let server: Server;
  if (scenario === 'standalone') {
    server = await standalone();
  } else if (scenario === 'bare') {
    const app = Fastify({ logger: false });
    app.post('/api/analytics/track', async () => ({ success: true }));
    server = { app, close: async () => {} };
  } else {
    server = await ingest(scenario, heapPolicy);
  }
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const address = server.app.server.address();
  serveChild({
    port: typeof address === 'object' && address ? address.port : 0,
    close: async () => { await server.app.close(); await server.close(); },
    onMessage: server.onMessage,
  });
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { 'heap-policy': { type: 'string', default: 'on' } } });
const scenario = positionals[0] as Scenario;
if (!SCENARIOS.includes(scenario)) {
  console.error(`usage: server.ts <${SCENARIOS.join('|')}> [--heap-policy off]`);
  process.exit(2);
}
serve(scenario, values['heap-policy'] !== 'off').catch((err) => {
  console.error(err);
  process.exit(1);
});
