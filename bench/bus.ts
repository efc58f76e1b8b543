/**
 * Bus throughput: `npm run bench:bus [-- --events N --concurrency C]`.
 * Publishes realistic ~400-byte events durably from many concurrent publishers (one event
 * per publish, as ingest does per request), then consumes them, for the embedded log and
 * Kafka, in one run. The baseline is the embedded log with ONE publisher: every publish
 * pays its own fsync, which is what group commit saves. Kafka is KAFKA_BROKERS, or else a
 * real single broker started with scripts/kafka/run.sh for the run (acks=all, idempotent, gzip).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@chatlytics/core';
import { createEmbeddedBus, createKafkaBus, type BusMessage, type EventBus } from '@chatlytics/bus';
import { startKafka } from '@chatlytics/bus/testing';
import { opt } from './lib/args.js';
import { defineBench } from './lib/bench.js';
import { benchLogger } from './lib/report.js';
import { quantile } from './lib/stats.js';

const log = benchLogger('warn');

function event(i: number): BusMessage {
  const token = `tok_${(i % 5000).toString(36).padStart(8, '0')}`;
  const body = {
    event_id: `0190a5c2-7d3e-7f00-8000-${i.toString(16).padStart(12, '0')}`, event: 'bot_open', token,
    chatbot_id: '6f1c2a8e-5b7d-4c3a-9e2f-1a2b3c4d5e6f', received_at: '2026-03-01 12:00:00.000', ab_test: false, ab_group: null,
    popup_version: 'v2', open_way: 'popup', order_num: '', currency: '', total_value: 0, total_value_base: 0, items: [],
    url: 'https://shop.example.com/p/shoe-42', user_agent: 'Mozilla/5.0 Chrome/126',
    client_hash: 'f3a9c1e07b2d', data: '{"popup_version":"v2"}',
  };
  return { key: token, value: Buffer.from(JSON.stringify(body)) };
}

interface Result { name: string; events: number; publishPerSec: number; consumePerSec: number; p50: number; p99: number }

async function measure(name: string, bus: EventBus, events: number, concurrency: number): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < events) {
      const msg = event(next++);
      const t0 = performance.now();
      await bus.publish([msg]);
      latencies.push(performance.now() - t0);
    }
  }));
  const publishSeconds = (performance.now() - started) / 1000;

  let consumed = 0;
  let firstAt = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => { done = resolve; });
  const consumer = await bus.consume(async (batch) => {
    // Throughput from the first delivery: Kafka's group join (seconds on the mock) is not the bus' speed.
    if (consumed === 0) firstAt = performance.now();
    consumed += batch.messages.length;
    if (consumed >= events) done();
  });
  await all;
  const consumeSeconds = (performance.now() - firstAt) / 1000;
  await consumer.stop();
  latencies.sort((a, b) => a - b);
  return {
    name, events, publishPerSec: events / publishSeconds, consumePerSec: events / Math.max(consumeSeconds, 1e-3),
    p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99),
  };
}

async function embedded(name: string, events: number, concurrency: number): Promise<Result> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bus-'));
  const bus = await createEmbeddedBus({ dir, log });
  try {
    return await measure(name, bus, events, concurrency);
  } finally {
    await bus.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function kafka(events: number, concurrency: number): Promise<Result | string> {
  let cfg = loadConfig(process.env).kafka;
  const local = cfg.brokers ? undefined : await startKafka({ brokers: 1 });
  if (local) cfg = { ...cfg, brokers: local.brokers.split(',') };
  const run = `bench-bus-${Date.now().toString(36)}`;
  const bus = createKafkaBus({ kafka: { ...cfg, topic: run, dlqTopic: `${run}-dlq`, groupId: `${run}-group` }, log, sessionTimeoutMs: 6000 });
  try {
    return await measure(local ? 'kafka (1 local broker)' : 'kafka', bus, events, concurrency);
  } finally {
    await bus.close();
    await local?.stop();
  }
}

export default defineBench({
  summary: 'Durable publish and consume throughput of the embedded log (64 publishers against one) and of Kafka.',
  options: {
    events: opt.number(20_000, 'events per run (the one-publisher baseline: 2,000 at most)', { min: 1, integer: true }),
    concurrency: opt.number(64, 'concurrent publishers', { min: 1, integer: true }),
  },
  async run(o, report) {
    const results: (Result | string)[] = [];
    results.push(await embedded('embedded, 1 publisher (baseline: fsync per publish)', Math.min(o.events, 2000), 1));
    results.push(await embedded(`embedded, ${o.concurrency} publishers (group commit)`, o.events, o.concurrency));
    results.push(await kafka(o.events, o.concurrency));

    const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
    report.text(`\nbus benchmark: ${event(0).value.length}-byte events, one event per publish\n`,
      '| bus | events | publish ev/s | consume ev/s | ack p50 ms | ack p99 ms |',
      '| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const r of results) {
      if (typeof r === 'string') {
        report.text(`| kafka | ${r} | | | | |`);
        continue;
      }
      report.text(`| ${r.name} | ${fmt(r.events)} | ${fmt(r.publishPerSec)} | ${fmt(r.consumePerSec)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} |`);
      const context = { bus: r.name, events: r.events };
      report.figure('publish', r.publishPerSec, 'ev/s', context);
      report.figure('consume', r.consumePerSec, 'ev/s', context);
      report.figure('ack p50', r.p50, 'ms', context);
      report.figure('ack p99', r.p99, 'ms', context);
    }
  },
});
