/**
 * `npm run bench:pipeline`: the consumer pipeline end to end, embedded engines, one process.
 *
 *   1. Baseline: the same rows inserted straight into ClickHouse (JSONEachRow, as many rows per
 *      insert as the embedded bus hands the consumer in one batch at most, --baseline-rows),
 *      no bus, no consumer: the ceiling the pipeline is compared against, in this run.
 *   2. Throughput: --events realistic StoredEvents published to the embedded bus first, then the
 *      consumer started; timed until all are visible to `SELECT count()`.  Target ≥ 100k/s.
 *   3. Freshness: a steady --rate events/s published for --seconds (small publishes every 10 ms, as
 *      the ingest's micro-batches do); per publish, the time from the bus acknowledgement to
 *      the moment a count query sees it.  Target p95 ≤ 2 s.
 *
 * `npm run bench -- pipeline-kafka` runs the Kafka topology instead: 1 vs 2 consumer processes
 * on a 6-partition topic (kafka.ts).
 *
 * Options (--help): the phases' sizes, the embedded bus's batch and read-ahead (by default the
 * bus's own, as production runs it), random (v4) event ids instead of UUID v7 (production's: the
 * tracker's, and the ingest's when the client sends none), and two variants of the views, to run
 * alternately with a normal run to see what that work costs (../views/materialized-views.ts):
 * --without-rollups (every materialized view, token ids, copy detection and the aggregates,
 * replaced by a plain copy into events) and --without-lookups (events_input_v2_mv without its
 * copy detection). --history N stores N events of the same chatbots over the 30 days before
 * the run first (history.ts): the pipeline's CPU per event with a store behind it against an
 * empty one. After the steady phase it reports what the engine's verification finds
 * (verify.ts) and the token-id rule's two counts: both 0, whatever --read-ahead.
 * Env: CLICKHOUSE_EMBEDDED_CONNECTIONS (default 2, as the services').
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createChdbEngine, runMigrations, verifyAggregates, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { createEmbeddedBus, EMBEDDED_BATCH_DEFAULTS } from '@chatlytics/bus';
import { loadConfig } from '@chatlytics/core';
import { newEventId, type StoredEvent } from '@chatlytics/events';
import { chTime } from '@chatlytics/testkit';
import { createConsumer } from '@chatlytics/consumer';
import { opt, type Values } from '../lib/args.js';
import { defineBench } from '../lib/bench.js';
import { taskCpu, threadsCpu } from '../lib/proc.js';
import { benchLogger, type Report } from '../lib/report.js';
import { quantile } from '../lib/stats.js';
import { replaceViews } from '../views/materialized-views.js';
import { baselineInsert, count, journeys, rate, sleep, steadyPublish, toMessage } from './common.js';
import { storeHistory } from './history.js';

const OPTIONS = {
  events: opt.number(1_000_000, 'events of the backlog (throughput phase)', { min: 1, integer: true }),
  rate: opt.number(5_000, 'events/s of the steady phase (freshness)', { min: 1 }),
  seconds: opt.number(20, 'seconds of the steady phase', { min: 1 }),
  // The pipeline's inserts are one bus batch: the baseline gets the same size, so that fewer
  // merges are not credited to the pipeline alone.
  'baseline-rows': opt.number(EMBEDDED_BATCH_DEFAULTS.maxBatchMessages, 'rows per direct insert of the baseline (the bus\'s batch)', { min: 1, integer: true }),
  'bus-batch': opt.number(undefined, 'the embedded bus\'s maxBatchMessages (and 2 KiB × that as maxBatchBytes); unset: its default', { min: 1, integer: true }),
  'read-ahead': opt.number(undefined, 'batches the embedded bus hands over before the oldest commits; unset: its default', { min: 1, integer: true }),
  'v4-ids': opt.flag('random (v4) event ids instead of UUID v7'),
  'without-rollups': opt.flag('every materialized view replaced by a plain copy into events'),
  'without-lookups': opt.flag('events_input_v2_mv without its copy detection'),
  history: opt.number(0, 'events stored before the pipeline runs, over the 30 days before now, for the same chatbots (history.ts)', { min: 0, integer: true }),
};
type Options = Values<typeof OPTIONS>;

export default defineBench({ summary: 'The consumer pipeline end to end on the embedded engines (bus → consumer → ClickHouse) against direct inserts, then freshness under a steady load.', options: OPTIONS, run: main });

const log = benchLogger('warn', 'bench');

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
function realisticEvents(n: number, eventId: (ms: number) => string): StoredEvent[] {
  const start = Date.now();
  return journeys(n, 2, (e, i, seed) => ({
    ...e,
    event_id: eventId(start + Math.floor(i / 100)),
    received_at: chTime(start + Math.floor(i / 100)),
    url: `https://shop-${seed % 50}.example.com/products/${e.token.slice(0, 6)}?utm_source=newsletter&utm_medium=email`,
    user_agent: USER_AGENTS[i % USER_AGENTS.length],
  }));
}

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
 * CPU time of the main (JavaScript) thread alone, in µs. The pipeline's ceiling is set by
 * whichever is larger: this per event, or half the whole process's CPU per event (chdb's
 * threads use the other core).
 */
const mainThreadCpuMicros = () => taskCpu('self', String(process.pid))?.us;

/** CPU µs per thread name (Linux), to tell JavaScript, V8's GC helpers, libuv and chdb's pools apart. */
function threadCpuMicros(): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of threadsCpu('self').values()) out.set(t.name, (out.get(t.name) ?? 0) + t.us);
  return out;
}

function threadCpuDelta(before: Map<string, number>, after: Map<string, number>, n: number): Record<string, number> {
  const rows = [...after].map(([name, us]) => [name, (us - (before.get(name) ?? 0)) / n] as const);
  return Object.fromEntries(rows.filter(([, v]) => v >= 0.1).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, +v.toFixed(1)]));
}

async function main(o: Options, report: Report) {
  const N = o.events;
  const views = o['without-rollups'] ? 'plain' : o['without-lookups'] ? 'no-lookups' : undefined;
  const migrate = async (ch: ClickHouseEngine) => {
    await runMigrations(ch);
    if (views) await replaceViews(ch, views);
  };
  // Event ids as production makes them: UUID v7 (the tracker's, and the ingest's when the client
  // sends none), time-ordered. --v4-ids: random ids, as a client sending its own v4 ids would.
  const eventId = (ms: number) => (o['v4-ids'] ? randomUUID() : newEventId(ms));
  // As the services' CLICKHOUSE_EMBEDDED_CONNECTIONS (validated and defaulted by the same config).
  const connections = loadConfig({ CLICKHOUSE_EMBEDDED_CONNECTIONS: process.env.CLICKHOUSE_EMBEDDED_CONNECTIONS }).clickhouse.embeddedConnections;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-pipeline-'));
  const chdbPath = path.join(dir, 'clickhouse');
  try {
    report.text(`generating ${N.toLocaleString()} events…`);
    const events = realisticEvents(N, eventId);
    const chatbots = [...new Set(events.map((e) => e.chatbot_id))];
    const messages = events.map(toMessage);
    events.length = 0;
    const bytes = messages.reduce((s, m) => s + m.value.length, 0);
    report.text(`  ${Math.round(bytes / N)} bytes/event on average, ${(bytes / 1e6).toFixed(0)} MB in all`);

    // 1. Baseline: straight inserts of the same bytes, its own database (same chdb path: one per process).
    const baselineCh = await createChdbEngine({ path: chdbPath, database: 'bench_baseline', log, connections });
    await migrate(baselineCh);
    const { ms: baselineMs, cpuUs: baselineCpuUs } = await baselineInsert(baselineCh, 'bench_baseline', messages, o['baseline-rows']);

    // 2. Throughput through bus + consumer.
    const ch = await createChdbEngine({ path: chdbPath, database: 'bench_pipeline', log, connections });
    await migrate(ch);
    if (o.history > 0) await storeHistory(ch, chatbots, o.history, (line) => report.text(line));
    // --bus-batch raises the byte cap with the message cap (2 KiB per message: ~3x the average row).
    const busBatch = o['bus-batch'];
    const bus = await createEmbeddedBus({ dir: path.join(dir, 'bus'), log, maxBatchMessages: busBatch, maxBatchBytes: busBatch && busBatch * 2048, readAhead: o['read-ahead'] });
    let started = performance.now();
    for (let i = 0; i < N; i += 5_000) await bus.publish(messages.slice(i, i + 5_000));
    const publishMs = performance.now() - started;
    // Phase 3 reuses 10k of them; dropping the rest keeps the heap (and so the GC work the
    // consumer pays for) the size a consumer process has, not 100s of MB of bench fixtures.
    const templates = messages.slice(0, 10_000).map((m) => JSON.parse(m.value.toString()) as StoredEvent);
    messages.length = 0;
    const stored = await count(ch); // --history's rows
    const consumer = createConsumer({ config: loadConfig({}, dir), bus, clickhouse: ch, log });
    started = performance.now();
    const cpu = process.cpuUsage();
    const mainCpuBefore = mainThreadCpuMicros();
    const threadsBefore = threadCpuMicros();
    const rssBefore = process.memoryUsage.rss();
    let peakRss = rssBefore;
    await consumer.start();
    // Every count() is a ClickHouse query competing for the same 2 cores: poll every 50 ms
    // (0.5 % of a 10 s run), not faster.
    while ((await count(ch)) - stored < N) {
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
    const perTick = Math.max(1, Math.round(o.rate / 100));
    const publisher = steadyPublish(bus, o.seconds, perTick, () => realisticTemplate(published++), () => publishes.push({ upTo: published, ackAt: performance.now() }));
    let seen = 0;
    while (publisher.publishing() || seen < publishes.length) {
      const visible = (await count(ch)) - base;
      const now = performance.now();
      // One partition, inserted in offset order: count = k means the first k published are visible.
      while (seen < publishes.length && publishes[seen].upTo <= visible) publishes[seen++].visibleAt = now;
      await sleep(10);
    }
    await publisher.done;
    const freshness = publishes.map((p) => p.visibleAt! - p.ackAt).sort((a, b) => a - b);
    await consumer.stop();
    // Exactness after the backlog and the steady phase (the wrong data of --without-* aside).
    const exact = views ? undefined : await exactness(ch);
    await bus.close();
    await ch.close();

    const cpuPerEvent = pipelineCpuUs / N;
    const context = { events: N, history: o.history, bytesPerEvent: Math.round(bytes / N), busBatch: busBatch ?? 'bus default', readAhead: o['read-ahead'] ?? 'bus default', views: views ?? 'all', ids: o['v4-ids'] ? 'v4' : 'v7' };
    const freshnessMs = { p50: quantile(freshness, 0.5), p95: quantile(freshness, 0.95), p99: quantile(freshness, 0.99), max: freshness.at(-1)! };
    report.figures(context, [
      ['baseline insert', rate(N, baselineMs), 'ev/s'], ['publish', rate(N, publishMs), 'ev/s'], ['pipeline end to end', rate(N, pipelineMs), 'ev/s'],
      ['pipeline ÷ baseline', baselineMs / pipelineMs, '×'], ['baseline CPU per event', baselineCpuUs / N, 'µs'],
      // Of which the JavaScript thread (bus read, decode, validate, encode, bookkeeping).
      ['pipeline JS thread CPU per event', mainCpuUs === undefined ? null : mainCpuUs / N, 'µs'],
      // What 2 otherwise idle cores could sustain at that CPU cost per event.
      ['capacity on 2 idle cores', Math.round((2 * 1e6) / cpuPerEvent), 'ev/s'],
      ['bus batches', stats.batches, 'batches'], ['flushes', stats.flushes, 'inserts'],
      // Resident memory while the consumer works through the backlog, above what the process held
      // when it started (sampled with each count poll): what batches and read-ahead cost.
      ['backlog RSS growth', Math.round((peakRss - rssBefore) / 2 ** 20), 'MB'],
    ]);
    // Threads grouped by name (digits dropped): which pool the CPU went to.
    report.figure('pipeline CPU per event', cpuPerEvent, 'µs', { ...context, byThread: threadCpuDelta(threadsBefore, threadsAfter, N), loadAverage: os.loadavg().map((l) => +l.toFixed(1)) });
    report.figures({ ...context, rate: o.rate, seconds: o.seconds }, Object.entries(freshnessMs).map(([k, v]) => [`freshness ${k}`, Math.round(v), 'ms']));
    if (exact) report.figures(context, [['ids naming several tokens', exact.idsNamingSeveralTokens, 'ids'], ['tokens with several ids', exact.tokensWithSeveralIds, 'tokens'], ['aggregate differences', exact.differences, 'rows']]);
    report.text(`baseline (direct inserts)   ${rate(N, baselineMs).toLocaleString()} events/s`,
      `publish to embedded bus     ${rate(N, publishMs).toLocaleString()} events/s`,
      `pipeline end to end         ${rate(N, pipelineMs).toLocaleString()} events/s (target ≥ 100,000; ${(baselineMs / pipelineMs).toFixed(2)}× baseline)`,
      `CPU per event              pipeline ${cpuPerEvent.toFixed(1)} µs, baseline ${(baselineCpuUs / N).toFixed(1)} µs → 2 idle cores ≈ ${Math.round((2 * 1e6) / cpuPerEvent).toLocaleString()} events/s (load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`,
      `  of which the JS thread      ${mainCpuUs === undefined ? 'n/a' : (mainCpuUs / N).toFixed(1)} µs/event`,
      `freshness at ${o.rate}/s         p50 ${Math.round(freshnessMs.p50)} ms, p95 ${Math.round(freshnessMs.p95)} ms (target ≤ 2000), p99 ${Math.round(freshnessMs.p99)} ms`);
    if (exact) report.text(`exactness                   ${exact.idsNamingSeveralTokens} ids naming several tokens, ${exact.tokensWithSeveralIds} tokens with several ids, ${exact.differences} aggregate differences (verify)`);
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
