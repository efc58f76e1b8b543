/**
 * `npm run bench:pipeline` — the consumer pipeline end to end, embedded engines, one process.
 *
 *   1. Baseline: the same rows inserted straight into ClickHouse (JSONEachRow, as many rows per
 *      insert as the embedded bus hands the consumer in one batch at most, --baseline-rows),
 *      no bus, no consumer: the ceiling the pipeline is compared against, in this run.
 *   2. Throughput: N realistic StoredEvents published to the embedded bus first, then the
 *      consumer started; timed until all N are visible to `SELECT count()`.  Target ≥ 100k/s.
 *   3. Freshness: a steady RATE events/s published for SECONDS (small publishes every 10 ms, as
 *      the ingest's micro-batches do); per publish, the time from the bus acknowledgement to
 *      the moment a count query sees it.  Target p95 ≤ 2 s.
 *
 * BENCH_PIPELINE_BUS=kafka runs the Kafka topology instead: 1 vs 2 consumer processes on a
 * 6-partition topic (scripts/bench-pipeline-kafka.ts).
 *
 * Options: --events 1000000 --rate 5000 --seconds 20 --baseline-rows <one bus batch> --bus-batch <maxBatchMessages
 * of the embedded bus (and 2 KiB × that as maxBatchBytes)> --read-ahead <batches the embedded bus
 * hands over before the oldest commits>; both default to the bus's own defaults, as production
 * runs it. --v4-ids: random event ids instead of UUID v7 (production's: the tracker's, and the
 * ingest's when the client sends none). --without-rollups: every materialized view (token ids,
 * copy detection, the aggregates; both phases) replaced by a plain copy into events;
 * --without-lookups: events_input_v2_mv without its copy detection (both in
 * materialized-views.ts); run either alternately with a normal run to see what that work costs.
 * After the throughput phase it prints what the engine's verification finds (verify.ts) and the
 * token-id rule's two counts: both 0, whatever --read-ahead.
 * Env: CLICKHOUSE_EMBEDDED_CONNECTIONS (default 2, as the services').
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createChdbEngine, runMigrations, verifyAggregates, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { createEmbeddedBus, EMBEDDED_BATCH_DEFAULTS, type BusMessage } from '@chatlytics/bus';
import { createLogger, loadConfig } from '@chatlytics/core';
import { newEventId, type StoredEvent } from '@chatlytics/events';
import { generateEvents, chTime } from '@chatlytics/testkit';
import { createConsumer } from '@chatlytics/consumer';
import { machineSpeedLine } from './machine-speed.js';
import { replaceViews } from './materialized-views.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt?: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const N = opt('events', 1_000_000)!;
const RATE = opt('rate', 5_000)!;
const SECONDS = opt('seconds', 20)!;
const BUS_BATCH = opt('bus-batch');
const READ_AHEAD = opt('read-ahead');
// The pipeline's inserts are one bus batch: the baseline gets the same size, so that fewer
// merges are not credited to the pipeline alone.
const BASELINE_ROWS = opt('baseline-rows', EMBEDDED_BATCH_DEFAULTS.maxBatchMessages)!;
// Event ids as production makes them: UUID v7 (the tracker's, and the ingest's when the client
// sends none), time-ordered. --v4-ids: random ids, as a client sending its own v4 ids would.
const V4_IDS = args.includes('--v4-ids');
const eventId = (ms: number) => (V4_IDS ? randomUUID() : newEventId(ms));
const VIEWS = args.includes('--without-rollups') ? 'plain' : args.includes('--without-lookups') ? 'no-lookups' : undefined;

async function migrate(ch: ClickHouseEngine): Promise<void> {
  await runMigrations(ch);
  if (VIEWS) await replaceViews(ch, VIEWS);
}
// As the services' CLICKHOUSE_EMBEDDED_CONNECTIONS (validated and defaulted by the same config).
const CONNECTIONS = loadConfig({ CLICKHOUSE_EMBEDDED_CONNECTIONS: process.env.CLICKHOUSE_EMBEDDED_CONNECTIONS }).clickhouse.embeddedConnections;
const log = createLogger('warn', 'bench');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
];

/**
 * Realistic rows (the testkit's journeys), each with its own id and a shop-like URL and user
 * agent. received_at is "now" (100 events per ms, the order they are published in), as the
 * ingest stamps it: a live stream lands in one monthly partition, not in the 45 days of
 * history the testkit spreads its journeys over (which would split every insert in 2-3 parts).
 */
function realisticEvents(n: number): StoredEvent[] {
  const out: StoredEvent[] = [];
  const start = Date.now();
  for (let seed = 1; out.length < n; seed++) {
    const batch = generateEvents({ seed, now: Date.UTC(2026, 5, 1), chatbotId: randomUUID(), otherChatbotIds: [randomUUID(), randomUUID()], users: 2_000 });
    for (const e of batch) {
      if (out.length === n) break;
      out.push({
        ...e,
        event_id: eventId(start + Math.floor(out.length / 100)),
        received_at: chTime(start + Math.floor(out.length / 100)),
        url: `https://shop-${seed % 50}.example.com/products/${e.token.slice(0, 6)}?utm_source=newsletter&utm_medium=email`,
        user_agent: USER_AGENTS[out.length % USER_AGENTS.length],
      });
    }
  }
  return out;
}

const toMessage = (e: StoredEvent): BusMessage => ({ key: e.token, value: Buffer.from(JSON.stringify(e)) });

async function count(ch: ClickHouseEngine): Promise<number> {
  const [row] = await ch.query<{ n: string }>('SELECT count() AS n FROM events');
  return Number(row.n);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));
/**
 * CPU time of this whole process (JS and chdb's native threads) since `from`. On a shared
 * machine wall time depends on the neighbours; CPU per event does not, and 2 cores divided by
 * it is the rate this pipeline could sustain alone on them.
 */
const cpuMicros = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return d.user + d.system;
};
/**
 * One thread's name (digits dropped, so a pool's threads group together) and CPU time in µs,
 * from Linux's per-thread accounting; undefined elsewhere or when the thread has ended.
 */
function taskCpu(tid: string): { name: string; us: number } | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, '');
    // Fields 14 and 15 of stat(5) (utime, stime), counted after the ")" that ends the command name.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { name, us: ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100 }; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/**
 * CPU time of the main (JavaScript) thread alone, in µs. The pipeline's ceiling is set by
 * whichever is larger: this per event, or half the whole process's CPU per event (chdb's
 * threads use the other core).
 */
const mainThreadCpuMicros = () => taskCpu(String(process.pid))?.us;

/** CPU µs per thread name (Linux), to tell JavaScript, V8's GC helpers, libuv and chdb's pools apart. */
function threadCpuMicros(): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[] = [];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    // not Linux
  }
  for (const tid of tids) {
    const t = taskCpu(tid);
    if (t) out.set(t.name, (out.get(t.name) ?? 0) + t.us);
  }
  return out;
}

function threadCpuDelta(before: Map<string, number>, after: Map<string, number>, n: number): Record<string, number> {
  const rows = [...after].map(([name, us]) => [name, (us - (before.get(name) ?? 0)) / n] as const);
  return Object.fromEntries(rows.filter(([, v]) => v >= 0.1).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, +v.toFixed(1)]));
}

async function main() {
  console.log(machineSpeedLine());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-pipeline-'));
  const chdbPath = path.join(dir, 'clickhouse');
  try {
    console.log(`generating ${N.toLocaleString()} events…`);
    const messages = realisticEvents(N).map(toMessage);
    const bytes = messages.reduce((s, m) => s + m.value.length, 0);
    console.log(`  ${Math.round(bytes / N)} bytes/event on average, ${(bytes / 1e6).toFixed(0)} MB in all`);

    // 1. Baseline: straight inserts of the same bytes, its own database (same chdb path: one per process).
    const baselineCh = await createChdbEngine({ path: chdbPath, database: 'bench_baseline', log, connections: CONNECTIONS });
    await migrate(baselineCh);
    let started = performance.now();
    let cpu = process.cpuUsage();
    for (let i = 0; i < N; i += BASELINE_ROWS) {
      const chunk = messages.slice(i, i + BASELINE_ROWS);
      await baselineCh.insert('events_input_v2', Buffer.concat(chunk.flatMap((m) => [m.value, Buffer.from('\n')])));
    }
    const baselineMs = performance.now() - started;
    const baselineCpuUs = cpuMicros(cpu);
    if ((await count(baselineCh)) !== N) throw new Error('baseline lost rows');
    // Its background merges would otherwise go on stealing the cores from the pipeline run.
    await baselineCh.command('DROP DATABASE bench_baseline SYNC');
    await baselineCh.close();

    // 2. Throughput through bus + consumer.
    const ch = await createChdbEngine({ path: chdbPath, database: 'bench_pipeline', log, connections: CONNECTIONS });
    await migrate(ch);
    // --bus-batch raises the byte cap with the message cap (2 KiB per message: ~3x the average row).
    const bus = await createEmbeddedBus({ dir: path.join(dir, 'bus'), log, maxBatchMessages: BUS_BATCH, maxBatchBytes: BUS_BATCH && BUS_BATCH * 2048, readAhead: READ_AHEAD });
    started = performance.now();
    for (let i = 0; i < N; i += 5_000) await bus.publish(messages.slice(i, i + 5_000));
    const publishMs = performance.now() - started;
    // Phase 3 reuses 10k of them; dropping the rest keeps the heap (and so the GC work the
    // consumer pays for) the size a consumer process has, not 100s of MB of bench fixtures.
    const templates = messages.slice(0, 10_000).map((m) => JSON.parse(m.value.toString()) as StoredEvent);
    messages.length = 0;
    const consumer = createConsumer({ config: loadConfig({}, dir), bus, clickhouse: ch, log });
    started = performance.now();
    cpu = process.cpuUsage();
    const mainCpuBefore = mainThreadCpuMicros();
    const threadsBefore = threadCpuMicros();
    const rssBefore = process.memoryUsage.rss();
    let peakRss = rssBefore;
    await consumer.start();
    // Every count() is a ClickHouse query competing for the same 2 cores: poll every 50 ms
    // (0.5 % of a 10 s run), not faster.
    while ((await count(ch)) < N) {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      await sleep(50);
    }
    const pipelineMs = performance.now() - started;
    const pipelineCpuUs = cpuMicros(cpu);
    const mainCpuAfter = mainThreadCpuMicros();
    const threadsAfter = threadCpuMicros();
    const mainCpuUs = mainCpuBefore === undefined || mainCpuAfter === undefined ? undefined : mainCpuAfter - mainCpuBefore;
    const stats = consumer.stats();

    // 3. Freshness under a steady load: the same realistic rows, new ids, received now.
    function realisticTemplate(i: number): StoredEvent {
      const now = Date.now();
      return { ...templates[i % templates.length], event_id: eventId(now), received_at: chTime(now) };
    }
    const base = await count(ch);
    const publishes: { upTo: number; ackAt: number; visibleAt?: number }[] = [];
    let published = 0;
    let publishing = true;
    const perTick = Math.max(1, Math.round(RATE / 100));
    const publisher = (async () => {
      const t0 = performance.now();
      for (let tick = 0; performance.now() - t0 < SECONDS * 1000; tick++) {
        const chunk = Array.from({ length: perTick }, () => {
          const e = realisticTemplate(published++);
          return toMessage(e);
        });
        await bus.publish(chunk);
        publishes.push({ upTo: published, ackAt: performance.now() });
        // Paced on the schedule, not on the previous publish: a slow one is caught up.
        const next = t0 + (tick + 1) * 10;
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait);
      }
      publishing = false;
    })();
    let seen = 0;
    while (publishing || seen < publishes.length) {
      const visible = (await count(ch)) - base;
      const now = performance.now();
      // One partition, inserted in offset order: count = k means the first k published are visible.
      while (seen < publishes.length && publishes[seen].upTo <= visible) publishes[seen++].visibleAt = now;
      await sleep(10);
    }
    await publisher;
    const freshness = publishes.map((p) => p.visibleAt! - p.ackAt).sort((a, b) => a - b);
    await consumer.stop();
    // Exactness after the backlog and the steady phase (the wrong data of --without-* aside).
    const exact = VIEWS ? undefined : await exactness(ch);
    await bus.close();
    await ch.close();

    const result = {
      events: N,
      bytesPerEvent: Math.round(bytes / N),
      busBatch: BUS_BATCH ?? 'bus default',
      readAhead: READ_AHEAD ?? 'bus default',
      baselineInsertPerSec: rate(N, baselineMs),
      publishPerSec: rate(N, publishMs),
      pipelineEndToEndPerSec: rate(N, pipelineMs),
      pipelineVsBaseline: +(baselineMs / pipelineMs).toFixed(2),
      baselineCpuUsPerEvent: +(baselineCpuUs / N).toFixed(1),
      pipelineCpuUsPerEvent: +(pipelineCpuUs / N).toFixed(1),
      // Of which the JavaScript thread (bus read, decode, validate, encode, bookkeeping).
      pipelineMainThreadCpuUsPerEvent: mainCpuUs === undefined ? null : +(mainCpuUs / N).toFixed(1),
      // What 2 otherwise idle cores could sustain at that CPU cost per event.
      // Threads grouped by name (digits dropped): which pool the rest of the CPU went to.
      pipelineCpuUsPerEventByThread: threadCpuDelta(threadsBefore, threadsAfter, N),
      pipelineCapacityOn2CoresPerSec: Math.round((2 * 1e6) / (pipelineCpuUs / N)),
      loadAverage: os.loadavg().map((l) => +l.toFixed(1)),
      busBatches: stats.batches,
      // Resident memory while the consumer works through the backlog, above what the process held
      // when it started (sampled with each count poll): what batches and read-ahead cost.
      backlogRssGrowthMB: Math.round((peakRss - rssBefore) / 2 ** 20),
      flushes: stats.flushes,
      steadyRate: RATE,
      steadySeconds: SECONDS,
      freshnessMs: { p50: Math.round(percentile(freshness, 50)), p95: Math.round(percentile(freshness, 95)), p99: Math.round(percentile(freshness, 99)), max: Math.round(freshness.at(-1)!) },
      exactness: exact ?? null,
    };
    console.log(`baseline (direct inserts)   ${result.baselineInsertPerSec.toLocaleString()} events/s`);
    console.log(`publish to embedded bus     ${result.publishPerSec.toLocaleString()} events/s`);
    console.log(`pipeline end to end         ${result.pipelineEndToEndPerSec.toLocaleString()} events/s (target ≥ 100,000; ${result.pipelineVsBaseline}× baseline)`);
    console.log(`CPU per event              pipeline ${result.pipelineCpuUsPerEvent} µs, baseline ${result.baselineCpuUsPerEvent} µs → 2 idle cores ≈ ${result.pipelineCapacityOn2CoresPerSec.toLocaleString()} events/s (load average ${result.loadAverage.join(' ')})`);
    console.log(`  of which the JS thread      ${result.pipelineMainThreadCpuUsPerEvent ?? 'n/a'} µs/event`);
    console.log(`freshness at ${RATE}/s         p50 ${result.freshnessMs.p50} ms, p95 ${result.freshnessMs.p95} ms (target ≤ 2000), p99 ${result.freshnessMs.p99} ms`);
    if (exact) console.log(`exactness                   ${exact.idsNamingSeveralTokens} ids naming several tokens, ${exact.tokensWithSeveralIds} tokens with several ids, ${exact.differences} aggregate differences (verify)`);
    console.log(JSON.stringify(result));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The token-id rule's two counts (the queries) and what verify finds: all 0 when exact. */
async function exactness(ch: ClickHouseEngine) {
  const [ids] = await ch.query<{ shared: string; split: string }>(`SELECT
      (SELECT count() FROM (SELECT chatbot_id, token_id FROM events WHERE token_id != 0 GROUP BY chatbot_id, token_id HAVING uniqExact(token) > 1)) AS shared,
      (SELECT count() FROM (SELECT chatbot_id, token FROM events WHERE token_id != 0 GROUP BY chatbot_id, token HAVING uniqExact(token_id) > 1)) AS split`);
  return { idsNamingSeveralTokens: Number(ids.shared), tokensWithSeveralIds: Number(ids.split), differences: (await verifyAggregates(ch)).length };
}

// BENCH_PIPELINE_BUS=kafka: Kafka and consumer processes instead (scripts/bench-pipeline-kafka.ts).
if (process.env.BENCH_PIPELINE_BUS === 'kafka') await (await import('./bench-pipeline-kafka.js')).benchPipelineKafka();
else await main();
