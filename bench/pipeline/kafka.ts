/**
 * `BENCH_PIPELINE_BUS=kafka npm run bench:pipeline` — the production topology of the pipeline:
 * Kafka (KAFKA_BROKERS, else a single node from scripts/kafka/run.sh), 1 then 2 consumer
 * processes (`start:consumer`) sharing a 6-partition topic, one ClickHouse. No ClickHouse server
 * is needed: this process serves the project's ClickHouse HTTP interface over chdb and the
 * consumers use the server adapter against it (as the consumer scale-out test does), so
 * every insert crosses HTTP as it would to a server.
 *
 *   1. Baseline: the same rows inserted straight through that interface (JSONEachRow,
 *      --baseline-rows per insert), no bus, no consumer.
 *   2. Per consumer count: N events published to a fresh topic first, then the consumers
 *      started; the rate (and CPU per event, from the consumers' /proc) is measured from the
 *      moment all of them listen until all N are visible, so process start-up is outside it
 *      and the group's rebalance onto all of them inside.
 *   3. Freshness: RATE events/s for SECONDS, one publish per 10 ms; per publish, the time from
 *      Kafka's acknowledgement until all its events are visible (each publish is tagged in `url`).
 *
 * Options: --events 200000 --rate 2000 --seconds 15 --baseline-rows 50000 --consumers 1,2
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { CLICKHOUSE_HTTP_MAX_URI_BYTES, clickhouseHttp, createServerEngine, runMigrations, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { createKafkaBus, type BusMessage } from '@chatlytics/bus';
import { startKafka, startService, type KafkaCluster, type ServiceProcess } from '@chatlytics/bus/testing';
import { createLogger, loadConfig } from '@chatlytics/core';
import type { StoredEvent } from '@chatlytics/events';
import { chTime, generateEvents } from '@chatlytics/testkit';

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const N = Number(opt('events', '200000'));
const RATE = Number(opt('rate', '2000'));
const SECONDS = Number(opt('seconds', '15'));
const BASELINE_ROWS = Number(opt('baseline-rows', '50000'));
const CONSUMERS = opt('consumers', '1,2').split(',').map(Number);
const PARTITIONS = 6;
// error: the server adapter warns about its long request timeout on every engine it opens.
const log = createLogger('error', 'bench');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** The testkit's journeys, each event with its own id, received now, `url` as `tag` says. */
function events(n: number, tag: (i: number) => string): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (let seed = 1; out.length < n; seed++) {
    for (const e of generateEvents({ seed, now: Date.UTC(2026, 5, 1), chatbotId: randomUUID(), otherChatbotIds: [randomUUID()], users: 2_000 })) {
      if (out.length === n) break;
      out.push({ ...e, event_id: randomUUID(), received_at: chTime(Date.now()), url: tag(out.length) });
    }
  }
  return out;
}
const templates = events(10_000, () => '');
const toMessage = (e: StoredEvent): BusMessage => ({ key: e.token, value: Buffer.from(JSON.stringify(e)) });

async function count(ch: ClickHouseEngine): Promise<number> {
  const [row] = await ch.query<{ n: string }>('SELECT count() AS n FROM events');
  return Number(row.n);
}

/** utime + stime of a process in µs (Linux), 0 elsewhere or once it has exited. */
function processCpuMicros(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return 0;
  }
}

async function runConsumers(k: number, ctx: { brokers: string; clickhouseUrl: string; dir: string; backlog: BusMessage[] }) {
  const database = `bench_kafka_${k}`;
  const ch = await createServerEngine({ url: ctx.clickhouseUrl, user: 'default', password: '', database, log, requestTimeoutMs: 120_000 });
  await runMigrations(ch);
  const topic = `bench-pipeline-${k}-${Date.now().toString(36)}`;
  const env = {
    KAFKA_BROKERS: ctx.brokers, KAFKA_TOPIC: topic, KAFKA_DLQ_TOPIC: `${topic}-dlq`, KAFKA_GROUP_ID: `${topic}-g`,
    KAFKA_PARTITIONS: String(PARTITIONS), CLICKHOUSE_URL: ctx.clickhouseUrl, CLICKHOUSE_DATABASE: database,
  };
  const bus = createKafkaBus({ kafka: loadConfig(env).kafka, log });
  const processes: ServiceProcess[] = [];
  try {
    await bus.prepare();
    let started = performance.now();
    // A few publishes in flight: the bus coalesces them into ≤ 1 MiB sends.
    for (let i = 0; i < ctx.backlog.length; i += 20_000) {
      await Promise.all([0, 5_000, 10_000, 15_000].map((o) => bus.publish(ctx.backlog.slice(i + o, Math.min(i + o + 5_000, i + 20_000)))));
    }
    const publishMs = performance.now() - started;

    started = performance.now();
    processes.push(...await Promise.all(Array.from({ length: k }, (_, n) =>
      startService('services/consumer/src/server.ts', { ...env, DATA_DIR: path.join(ctx.dir, `consumer-${k}-${n}`), CONSUMER_PORT: '0' }))));
    // Measured from the moment all k are up: the first process may have consumed part of the
    // backlog alone meanwhile; the group's rebalance onto k members is inside the window.
    const cpu = () => processes.reduce((s, p) => s + processCpuMicros(p.child.pid!), 0);
    const [upAt, cpuUp, countUp] = [performance.now(), cpu(), await count(ch)];
    while ((await count(ch)) < N) await sleep(100);
    const doneAt = performance.now();
    const measured = N - countUp;
    const cpuUs = cpu() - cpuUp;

    // Freshness: each 10 ms publish is one tag; visible once all its events are counted.
    const perTick = Math.max(1, Math.round(RATE / 100));
    const acks: number[] = [];
    const visible = new Map<number, number>();
    let publishing = true;
    const publisher = (async () => {
      const t0 = performance.now();
      for (let tick = 0; performance.now() - t0 < SECONDS * 1000; tick++) {
        const batch = Array.from({ length: perTick }, (_, i) => ({
          ...templates[(tick * perTick + i) % templates.length], event_id: randomUUID(), received_at: chTime(Date.now()), url: `https://fresh.example.com/${tick}`,
        }));
        await bus.publish(batch.map(toMessage));
        acks[tick] = performance.now();
        const wait = t0 + (tick + 1) * 10 - performance.now();
        if (wait > 0) await sleep(wait);
      }
      publishing = false;
    })();
    const pending = () => acks.some((_, tick) => !visible.has(tick));
    while (publishing || pending()) {
      const rows = await ch.query<{ tick: string; n: string }>(
        "SELECT extract(url, 'fresh\\\\.example\\\\.com/(\\\\d+)') AS tick, count() AS n FROM events WHERE startsWith(url, 'https://fresh.') GROUP BY tick");
      const now = performance.now();
      for (const r of rows) if (Number(r.n) >= perTick && !visible.has(Number(r.tick))) visible.set(Number(r.tick), now);
      await sleep(50);
    }
    await publisher;
    const freshness = acks.map((ack, tick) => visible.get(tick)! - ack).sort((a, b) => a - b);
    return {
      consumers: k,
      publishPerSec: rate(N, publishMs),
      // Events consumed once all k were up, and at what rate (a small share means: raise --events).
      measuredEvents: measured,
      consumedPerSec: rate(measured, doneAt - upAt),
      allVisibleAfterSpawnMs: Math.round(doneAt - started),
      consumerCpuUsPerEvent: measured > 0 ? +(cpuUs / measured).toFixed(1) : null,
      freshnessMs: { p50: Math.round(percentile(freshness, 50)), p95: Math.round(percentile(freshness, 95)), max: Math.round(freshness.at(-1)!) },
    };
  } finally {
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
    await bus.close();
    await ch.command(`DROP DATABASE ${database} SYNC`).catch(() => undefined);
    await ch.close();
  }
}

export async function benchPipelineKafka(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-pipeline-kafka-'));
  let cluster: KafkaCluster | undefined;
  const bridge = Fastify({ http: { maxHeaderSize: CLICKHOUSE_HTTP_MAX_URI_BYTES } });
  try {
    const brokers = process.env.KAFKA_BROKERS ?? (cluster = await startKafka({ brokers: 1 })).brokers;
    await bridge.register(clickhouseHttp, { sessionPath: path.join(dir, 'clickhouse'), database: 'default', readonly: false });
    const clickhouseUrl = await bridge.listen({ host: '127.0.0.1', port: 0 });
    console.log(`generating ${N.toLocaleString()} events…`);
    const backlog = events(N, (i) => `https://shop-${i % 50}.example.com/products/${i % 997}?utm_source=newsletter`).map(toMessage);
    const bytes = backlog.reduce((s, m) => s + m.value.length, 0);

    const baseline = await createServerEngine({ url: clickhouseUrl, user: 'default', password: '', database: 'bench_baseline', log, requestTimeoutMs: 120_000 });
    await runMigrations(baseline);
    const started = performance.now();
    for (let i = 0; i < N; i += BASELINE_ROWS) {
      await baseline.insert('events_input_v2', Buffer.concat(backlog.slice(i, i + BASELINE_ROWS).flatMap((m) => [m.value, Buffer.from('\n')])));
    }
    const baselinePerSec = rate(N, performance.now() - started);
    if ((await count(baseline)) !== N) throw new Error('baseline lost rows');
    await baseline.command('DROP DATABASE bench_baseline SYNC');
    await baseline.close();

    const runs = [];
    for (const k of CONSUMERS) runs.push(await runConsumers(k, { brokers, clickhouseUrl, dir, backlog }));
    const result = { events: N, bytesPerEvent: Math.round(bytes / N), partitions: PARTITIONS, baselinePerSec, runs,
      steadyRate: RATE, steadySeconds: SECONDS, loadAverage: os.loadavg().map((l) => +l.toFixed(1)) };
    console.log(`baseline (direct inserts over HTTP)  ${baselinePerSec.toLocaleString()} events/s`);
    for (const r of runs) {
      console.log(`${r.consumers} consumer process(es)   ${r.consumedPerSec.toLocaleString()} events/s consumed over ${r.measuredEvents.toLocaleString()} events (${(r.consumedPerSec / baselinePerSec).toFixed(2)}× baseline), `
        + `${r.consumerCpuUsPerEvent} µs CPU/event, freshness at ${RATE}/s p50 ${r.freshnessMs.p50} ms p95 ${r.freshnessMs.p95} ms`);
    }
    console.log(JSON.stringify(result));
  } finally {
    await bridge.close();
    await cluster?.stop();
    if (cluster) rmSync(cluster.dir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}
