/**
 * `npm run bench -- pipeline-kafka`: the production topology of the pipeline:
 * Kafka (KAFKA_BROKERS, else a single node from scripts/kafka/run.sh), 1 then 2 consumer
 * processes (`start:consumer`) sharing a 6-partition topic, one ClickHouse. No ClickHouse server
 * is needed: this process serves the project's ClickHouse HTTP interface over chdb and the
 * consumers use the server adapter against it (as the consumer scale-out test does), so
 * every insert crosses HTTP as it would to a server.
 *
 *   1. Baseline: the same rows inserted straight through that interface (JSONEachRow,
 *      --baseline-rows per insert), no bus, no consumer.
 *   2. Per consumer count (--consumers): --events events published to a fresh topic first, then the consumers
 *      started; the rate (and CPU per event, from the consumers' /proc) is measured from the
 *      moment all of them listen until all are visible, so process start-up is outside it
 *      and the group's rebalance onto all of them inside.
 *   3. Freshness: --rate events/s for --seconds, one publish per 10 ms; per publish, the time from
 *      Kafka's acknowledgement until all its events are visible (each publish is tagged in `url`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { CLICKHOUSE_HTTP_MAX_URI_BYTES, clickhouseHttp, createServerEngine, runMigrations } from '@chatlytics/clickhouse';
import { createKafkaBus, type BusMessage } from '@chatlytics/bus';
import { startKafka, startService, type KafkaCluster, type ServiceProcess } from '@chatlytics/bus/testing';
import { loadConfig } from '@chatlytics/core';
import type { StoredEvent } from '@chatlytics/events';
import { chTime } from '@chatlytics/testkit';
import { opt, type Values } from '../lib/args.js';
import { defineBench } from '../lib/bench.js';
import { taskCpu } from '../lib/proc.js';
import { benchLogger, type Report } from '../lib/report.js';
import { quantile } from '../lib/stats.js';
import { baselineInsert, count, journeys, rate, sleep, steadyPublish, toMessage } from './common.js';

const OPTIONS = {
  events: opt.number(200_000, 'events of the backlog, per consumer count', { min: 1, integer: true }),
  rate: opt.number(2_000, 'events/s of the steady phase (freshness)', { min: 1 }),
  seconds: opt.number(15, 'seconds of the steady phase', { min: 1 }),
  'baseline-rows': opt.number(50_000, 'rows per direct insert of the baseline', { min: 1, integer: true }),
  consumers: opt.numbers([1, 2], 'consumer process counts, one run each'),
};
type Options = Values<typeof OPTIONS>;

export default defineBench({ summary: 'The pipeline\'s production topology: Kafka, 1 then 2 consumer processes, ClickHouse over HTTP; against direct inserts, then freshness under a steady load.', options: OPTIONS, run: main });

const PARTITIONS = 6;
// error: the server adapter warns about its long request timeout on every engine it opens.
const log = benchLogger('error', 'bench');

/** The testkit's journeys, each event with its own id, received now, `url` as `tag` says. */
const events = (n: number, tag: (i: number) => string): StoredEvent[] =>
  journeys(n, 1, (e, i) => ({ ...e, event_id: randomUUID(), received_at: chTime(Date.now()), url: tag(i) }));

/** utime + stime of a process in µs (Linux), 0 elsewhere or once it has exited. */
const processCpuMicros = (pid: number): number => taskCpu(pid)?.us ?? 0;

interface Context { o: Options; brokers: string; clickhouseUrl: string; dir: string; backlog: BusMessage[]; templates: StoredEvent[] }

async function runConsumers(k: number, ctx: Context) {
  const { o, templates } = ctx;
  const N = o.events;
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
      await Promise.all([0, 5_000, 10_000, 15_000].map((at) => bus.publish(ctx.backlog.slice(i + at, Math.min(i + at + 5_000, i + 20_000)))));
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
    const perTick = Math.max(1, Math.round(o.rate / 100));
    const acks: number[] = [];
    const visible = new Map<number, number>();
    const publisher = steadyPublish(bus, o.seconds, perTick, (tick, i) => ({
      ...templates[(tick * perTick + i) % templates.length], event_id: randomUUID(), received_at: chTime(Date.now()), url: `https://fresh.example.com/${tick}`,
    }), (tick) => { acks[tick] = performance.now(); });
    const pending = () => acks.some((_, tick) => !visible.has(tick));
    while (publisher.publishing() || pending()) {
      const rows = await ch.query<{ tick: string; n: string }>(
        "SELECT extract(url, 'fresh\\\\.example\\\\.com/(\\\\d+)') AS tick, count() AS n FROM events WHERE startsWith(url, 'https://fresh.') GROUP BY tick");
      const now = performance.now();
      for (const r of rows) if (Number(r.n) >= perTick && !visible.has(Number(r.tick))) visible.set(Number(r.tick), now);
      await sleep(50);
    }
    await publisher.done;
    const freshness = acks.map((ack, tick) => visible.get(tick)! - ack).sort((a, b) => a - b);
    return {
      consumers: k,
      publishPerSec: rate(N, publishMs),
      // Events consumed once all k were up, and at what rate (a small share means: raise --events).
      measuredEvents: measured,
      consumedPerSec: rate(measured, doneAt - upAt),
      allVisibleAfterSpawnMs: Math.round(doneAt - started),
      consumerCpuUsPerEvent: measured > 0 ? +(cpuUs / measured).toFixed(1) : null,
      freshnessMs: { p50: Math.round(quantile(freshness, 0.5)), p95: Math.round(quantile(freshness, 0.95)), max: Math.round(freshness.at(-1)!) },
    };
  } finally {
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
    await bus.close();
    await ch.command(`DROP DATABASE ${database} SYNC`).catch(() => undefined);
    await ch.close();
  }
}

async function main(o: Options, report: Report): Promise<void> {
  const N = o.events;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-pipeline-kafka-'));
  let cluster: KafkaCluster | undefined;
  const bridge = Fastify({ http: { maxHeaderSize: CLICKHOUSE_HTTP_MAX_URI_BYTES } });
  try {
    const templates = events(10_000, () => '');
    const brokers = process.env.KAFKA_BROKERS ?? (cluster = await startKafka({ brokers: 1 })).brokers;
    await bridge.register(clickhouseHttp, { sessionPath: path.join(dir, 'clickhouse'), database: 'default', readonly: false });
    const clickhouseUrl = await bridge.listen({ host: '127.0.0.1', port: 0 });
    report.text(`generating ${N.toLocaleString()} events…`);
    const backlog = events(N, (i) => `https://shop-${i % 50}.example.com/products/${i % 997}?utm_source=newsletter`).map(toMessage);
    const bytes = backlog.reduce((s, m) => s + m.value.length, 0);

    const baseline = await createServerEngine({ url: clickhouseUrl, user: 'default', password: '', database: 'bench_baseline', log, requestTimeoutMs: 120_000 });
    await runMigrations(baseline);
    const baselinePerSec = rate(N, (await baselineInsert(baseline, 'bench_baseline', backlog, o['baseline-rows'])).ms);

    const runs = [];
    for (const k of o.consumers) runs.push(await runConsumers(k, { o, brokers, clickhouseUrl, dir, backlog, templates }));
    const context = { events: N, bytesPerEvent: Math.round(bytes / N), partitions: PARTITIONS };
    report.figure('baseline insert over HTTP', baselinePerSec, 'ev/s', context);
    report.text(`baseline (direct inserts over HTTP)  ${baselinePerSec.toLocaleString()} events/s`);
    for (const r of runs) {
      report.text(`${r.consumers} consumer process(es)   ${r.consumedPerSec.toLocaleString()} events/s consumed over ${r.measuredEvents.toLocaleString()} events (${(r.consumedPerSec / baselinePerSec).toFixed(2)}× baseline), `
        + `${r.consumerCpuUsPerEvent} µs CPU/event, freshness at ${o.rate}/s p50 ${r.freshnessMs.p50} ms p95 ${r.freshnessMs.p95} ms`);
      report.figures({ ...context, consumers: r.consumers, measuredEvents: r.measuredEvents }, [
        ['publish', r.publishPerSec, 'ev/s'], ['consumed', r.consumedPerSec, 'ev/s'], ['consumed ÷ baseline', r.consumedPerSec / baselinePerSec, '×'],
        ['all visible after spawn', r.allVisibleAfterSpawnMs, 'ms'], ['consumer CPU per event', r.consumerCpuUsPerEvent, 'µs'],
      ]);
      report.figures({ ...context, consumers: r.consumers, rate: o.rate, seconds: o.seconds }, Object.entries(r.freshnessMs).map(([k, v]) => [`freshness ${k}`, v, 'ms']));
    }
    report.text(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    await bridge.close();
    await cluster?.stop();
    if (cluster) rmSync(cluster.dir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}
