/**
 * Dashboard read benchmark (`npm run bench:dashboard`): one account with 50 chatbots, 2,000 data
 * sources and a detail of 200 chunks, on PGlite and on the PostgreSQL server at DATABASE_URL
 * (a throw-away database beside it). The dashboard plugin listens in a child process (autocannon's
 * CPU is not the server's), authenticated by an API key. Baseline, same run: a bare Fastify child
 * answering each route with the dashboard's own response body, so the difference is the
 * dashboard's own work. Per route: req/s and p99 at max throughput, p50/p99 at 200 req/s (bursty
 * autocannon overallRate, and a steady paced rate); target p99 < 50 ms at a steady 200 req/s.
 * Env: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 32), BENCH_VARIANTS
 * (pglite,server), BENCH_ROUTES (chatbots,list,detail), BENCH_PROFILE (directory for a CPU profile
 * of the dashboard child). Internal: `--serve <json>` makes this file the child server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';

const thisFile = fileURLToPath(import.meta.url);
type ServeSpec =
  | { kind: 'dashboard'; dataDir: string; databaseUrl?: string }
  /** The dashboard's response bodies by URL, in a JSON file (too large for argv). */
  | { kind: 'baseline'; bodiesFile: string };

async function serve(spec: ServeSpec): Promise<void> {
  // Start-up is not measured; on a busy 2-core machine plugins can exceed avvio's 10 s default.
  const app = Fastify({ logger: false, pluginTimeout: 120_000 });
  let closeStore = async () => {};
  if (spec.kind === 'baseline') {
    // Parsed, not pre-serialised: the baseline pays for JSON serialisation like the dashboard does.
    const bodies = JSON.parse(fs.readFileSync(spec.bodiesFile, 'utf8')) as Record<string, unknown>;
    for (const [url, body] of Object.entries(bodies)) app.get(url, async () => body);
  } else {
    const { loadConfig, createLogger } = await import('@chatlytics/core');
    const { createPostgres } = await import('@chatlytics/postgres');
    const { dashboardApp } = await import('@chatlytics/dashboard');
    const config = loadConfig({ DATA_DIR: spec.dataDir, DATABASE_URL: spec.databaseUrl, SESSION_SECRET: 'bench-session-secret'.padEnd(40, 'x') });
    const log = createLogger('warn', 'bench-dashboard');
    const postgres = await createPostgres({ databaseUrl: spec.databaseUrl, dataDir: spec.dataDir, log });
    closeStore = () => postgres.close();
    await app.register(dashboardApp, { config, postgres, log });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  // The parent gone (killed, crashed) means nobody will ever send 'stop'.
  process.once('disconnect', () => process.exit(0));
  process.on('message', async (msg: string) => {
    if (msg !== 'stop') return;
    await app.close();
    await closeStore();
    process.exit(0);
  });
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
}

const CHATBOTS = 50;
const CONVERSATIONS_PER_BOT = 100;
const PARENTS = 1600;
const CHILDREN = 400;
const CHUNKS = 200;
const DAY = 86_400_000;

interface Seeded { key: string; detailId: string }

/** The account, through the same tables and credential repository the dashboard reads. */
export async function seed(dataDir: string, databaseUrl?: string): Promise<Seeded> {
  const { createPostgres, accounts, chatbots, dataSources, chunks, conversations } = await import('@chatlytics/postgres');
  const { createCredentialRepository } = await import('@chatlytics/dashboard');
  const { pino } = await import('pino');
  const { sql } = await import('drizzle-orm');
  const postgres = await createPostgres({ databaseUrl, dataDir, log: pino({ level: 'warn' }) });
  try {
    await postgres.migrate();
    const { db } = postgres;
    const now = Date.now();
    const [account] = await db.insert(accounts).values({ name: 'Bench shop', cmsProviders: ['shopify', 'woocommerce'] }).returning({ id: accounts.id });
    const { key } = await createCredentialRepository({ db }).createApiKey({ accountId: account.id, name: 'bench' });
    const bots = await db.insert(chatbots).values(Array.from({ length: CHATBOTS }, (_, i) => ({
      accountId: account.id, name: `Assistant ${String(i).padStart(2, '0')}`, status: i % 7 === 0 ? 'paused' : 'active',
      language: i % 3 === 0 ? 'de' : 'en', integratedAt: '2025-06-01',
      settings: { companyName: `Shop ${i}`, supportEmail: `help${i}@shop.test`, abTestEnabled: i % 5 === 0, extraTagName: i % 2 ? 'category' : null },
      updatedAt: new Date(now - i * 3_600_000),
    }))).returning({ id: chatbots.id });
    // Batches keep each INSERT's parameter count far below PostgreSQL's 65,535 limit.
    const batches = async <T>(rows: T[], size: number, insert: (part: T[]) => Promise<unknown>) => {
      for (let i = 0; i < rows.length; i += size) await insert(rows.slice(i, i + size));
    };
    await batches(bots.flatMap((bot, b) => Array.from({ length: CONVERSATIONS_PER_BOT }, (_, c) => ({
      chatbotId: bot.id, startedAt: new Date(now - ((b * CONVERSATIONS_PER_BOT + c) % 60) * DAY),
    }))), 1000, (part) => db.insert(conversations).values(part));
    const dataSource = (i: number, parentId: string | null) => {
      const bot = bots[i % CHATBOTS];
      return {
        chatbotId: bot.id, accountId: account.id, parentId, name: `${parentId ? 'Page' : 'Source'} ${i}`,
        type: ['file', 'url', 'text', 'crawl'][i % 4], subtype: ['csv', null, null, 'sitemap'][i % 4], status: ['completed', 'processing', 'failed'][i % 3],
        source: `https://shop.test/${i}`, documentCount: i % 50, productCount: i % 4 === 0 ? i % 30 : null, autoUpdate: i % 2 === 0,
        rawPath: null, simpleFetch: i % 3 === 0, settings: { depth: i % 4 },
        extraTags: [{ name: 'category', value: `cat-${i % 17}` }, { name: 'category', value: `brand-${i % 5}` }],
        createdAt: new Date(now - i * 60_000), updatedAt: new Date(now - i * 3_600_000),
      };
    };
    const parents: { id: string }[] = [];
    await batches(Array.from({ length: PARENTS }, (_, i) => dataSource(i, null)), 500, async (part) => {
      parents.push(...await db.insert(dataSources).values(part).returning({ id: dataSources.id }));
    });
    // Children under the first parents, a few each: childrenCount is non-zero for many rows.
    await batches(Array.from({ length: CHILDREN }, (_, i) => dataSource(PARENTS + i, parents[i % 100].id)), 500,
      (part) => db.insert(dataSources).values(part));
    const detailId = parents[0].id;
    await db.insert(chunks).values(Array.from({ length: CHUNKS }, (_, i) => ({
      dataSourceId: detailId, index: i, tokenCount: 120, embedding: i % 2 ? [0.1, 0.2, 0.3] : null,
      content: `Chunk ${i}: ${'Trail running shoes with a grippy sole and a breathable mesh upper. '.repeat(8)}`,
    })));
    // Planner statistics, as a database in service has them (autovacuum would, minutes later).
    await db.execute(sql`analyze`);
    return { key, detailId };
  } finally {
    await postgres.close();
  }
}

const started = new Set<ChildProcess>();
for (const signal of process.argv[2] === '--serve' ? [] : ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of started) child.kill('SIGKILL');
    process.exit(130);
  });
}

function startServer(spec: ServeSpec): Promise<{ child: ChildProcess; port: number }> {
  // BENCH_PROFILE=<dir>: the dashboard child writes a V8 CPU profile there when it stops.
  const profile = spec.kind === 'dashboard' && process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, '--import=tsx', thisFile, '--serve', JSON.stringify(spec)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  started.add(child);
  child.once('exit', () => started.delete(child));
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`${spec.kind} server exited with ${code}`)));
  });
}

function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.send('stop');
  });
}

interface Run { rps: number; p50: number; p99: number; bad: number }

async function load(port: number, url: string, key: string, seconds: number, connections: number, overallRate?: number): Promise<Run> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${url}`, connections, duration: seconds, overallRate,
    headers: { authorization: `Bearer ${key}` },
    // At a fixed rate autocannon 9's coordinated-omission correction pads every response slower
    // than 1 ms with fabricated samples (see bench-ingest.ts): the raw latencies are the honest figure.
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
  const pct = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0);
  return { rps: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99), bad };
}

const TARGET_RATE = 200;
const TARGET_P99_MS = 50;

async function benchVariant(name: string, dataDir: string, databaseUrl: string | undefined, seconds: number, connections: number) {
  const t0 = performance.now();
  const { key, detailId } = await seed(dataDir, databaseUrl);
  console.log(`\n== ${name}: seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const routes = ['/api/dashboard/chatbots', '/api/dashboard/data-sources', `/api/dashboard/data-sources/${detailId}`];

  const dashboard = await startServer({ kind: 'dashboard', dataDir, databaseUrl });
  const bodies: Record<string, unknown> = {};
  for (const url of routes) {
    const res = await fetch(`http://127.0.0.1:${dashboard.port}${url}`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    const text = await res.text();
    bodies[url] = JSON.parse(text);
    console.log(`${url}: ${(text.length / 1024).toFixed(0)} KiB`);
  }
  const bodiesFile = path.join(dataDir, 'baseline-bodies.json');
  fs.writeFileSync(bodiesFile, JSON.stringify(bodies));
  const baseline = await startServer({ kind: 'baseline', bodiesFile });
  try {
    const wanted = (process.env.BENCH_ROUTES ?? 'chatbots,list,detail').split(',');
    for (const [i, url] of routes.entries()) {
      if (!wanted.includes(['chatbots', 'list', 'detail'][i])) continue;
      const label = url.replace(detailId, '{id}');
      const row: string[] = [];
      for (const [server, port] of [['baseline', baseline.port], ['dashboard', dashboard.port]] as const) {
        await load(port, url, key, 2, connections); // warm-up: JIT, pools, caches
        const max = await load(port, url, key, seconds, connections);
        // Enough connections to carry the rate at 40 ms per request (Little's law), not more:
        // autocannon fires each connection's quota at the start of every second.
        const fixed = await load(port, url, key, seconds, Math.max(8, Math.ceil(TARGET_RATE * 0.04)), TARGET_RATE);
        // Below the rate at full load, a steady run would only measure an ever-growing queue.
        const steady = max.rps >= TARGET_RATE ? await paced(port, url, key, seconds, TARGET_RATE) : undefined;
        const verdict = server === 'dashboard' ? (steady && steady.p99 < TARGET_P99_MS && !steady.bad ? ' (target met)' : ' (TARGET MISSED)') : '';
        const bad = max.bad + fixed.bad + (steady?.bad ?? 0);
        row.push(`  ${server.padEnd(9)} max ${Math.round(max.rps)} req/s p99 ${max.p99} ms`
          + ` | overallRate ${TARGET_RATE}: ${Math.round(fixed.rps)} req/s p50 ${fixed.p50} p99 ${fixed.p99} ms`
          + (steady ? ` | steady ${TARGET_RATE}: ${Math.round(steady.rps)} req/s p50 ${steady.p50} p99 ${steady.p99} ms` : ` | steady ${TARGET_RATE}: n/a (max below it)`)
          + verdict
          + (bad ? ` [${bad} failed]` : ''));
      }
      console.log(`${label}\n${row.join('\n')}`);
    }
  } finally {
    await stopServer(baseline.child);
    await stopServer(dashboard.child);
  }
}

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_DURATION ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
  console.log(`${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${seconds} s per measurement`);

  const variants = (process.env.BENCH_VARIANTS ?? 'pglite,server').split(',');
  if (variants.includes('pglite')) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-dashboard-'));
    try {
      await benchVariant('PGlite (embedded)', dataDir, undefined, seconds, connections);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }

  if (!variants.includes('server')) return;
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = `bench_dashboard_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const serverDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-dashboard-'));
  try {
    await benchVariant(`PostgreSQL server (${url.host})`, serverDir, url.toString(), seconds, connections);
  } finally {
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
    fs.rmSync(serverDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--serve') {
  await serve(JSON.parse(process.argv[3]) as ServeSpec);
} else if (process.argv[1] && path.resolve(process.argv[1]) === thisFile) {
  await main();
  process.exit(0);
}
