import { Gauge, type Counter, type Histogram } from 'prom-client';
import { counterOn, histogramOn, type Registry } from '@chatlytics/core';
import type { LagProbe } from './lag.js';

/**
 * The consumer's metrics: rows written, poison by reason, drops by reason, duplicates by where
 * they were found, time per pipeline step, insert sizes and latency, freshness, lag.
 */
export interface ConsumerMetrics {
  rowsWritten: Counter;
  ordersWritten: Counter;
  rejects: Counter<'reason'>;
  duplicates: Counter<'where'>;
  batchRows: Histogram;
  insertSeconds: Histogram;
  freshnessSeconds: Histogram;
  retries: Counter<'operation'>;
  flushes: Counter<'trigger'>;
  decoded: Counter<'path'>;
  drops: Counter<'reason'>;
  stepSeconds: Counter<'step'>;
  stepMessages: Counter<'step'>;
}

export function createConsumerMetrics(registry: Registry): ConsumerMetrics {
  return {
    rowsWritten: counterOn(registry, {
      name: 'chatlytics_consumer_rows_written_total', help: 'Rows inserted into ClickHouse events (acknowledged)',
    }),
    ordersWritten: counterOn(registry, {
      name: 'chatlytics_consumer_orders_written_total', help: 'Order states inserted into ClickHouse orders (acknowledged)',
    }),
    rejects: counterOn(registry, {
      name: 'chatlytics_consumer_rejects_total', help: 'Poison messages sent to the dead-letter stream and events_rejected, by reason', labelNames: ['reason'],
    }),
    duplicates: counterOn(registry, {
      name: 'chatlytics_consumer_duplicates_total',
      help: 'Rows left out because their event_id was already in the same insert (batch), inserted recently by this process (recent), or found stored after a redelivery (stored)',
      labelNames: ['where'],
    }),
    // Rows per INSERT: the buckets straddle the flush sizes (see InsertBufferOptions.maxRows).
    batchRows: histogramOn(registry, {
      name: 'chatlytics_consumer_insert_rows', help: 'Rows per INSERT into events',
      buckets: [10, 100, 500, 1000, 2500, 5000, 10000, 20000, 50000, 100000],
    }),
    insertSeconds: histogramOn(registry, {
      name: 'chatlytics_consumer_insert_duration_seconds', help: 'Latency of one successful INSERT into events',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    }),
    // Per bus batch, its oldest message: the worst case the dashboard can see.
    freshnessSeconds: histogramOn(registry, {
      name: 'chatlytics_consumer_freshness_seconds', help: 'Bus acceptance to ClickHouse acknowledgement, oldest message of each bus batch',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    }),
    retries: counterOn(registry, {
      name: 'chatlytics_consumer_retries_total', help: 'Retriable failures backed off from, by operation', labelNames: ['operation'],
    }),
    flushes: counterOn(registry, {
      name: 'chatlytics_consumer_flushes_total', help: 'Flushes of the shared insert buffer, by what triggered them', labelNames: ['trigger'],
    }),
    // A falling canonical share means the producer's serialisation changed (key order, escaping):
    // nothing is lost, the general path takes over, but each event then costs ~2× the CPU.
    decoded: counterOn(registry, {
      name: 'chatlytics_consumer_decoded_total',
      help: 'Messages decoded by the canonical transcoder (canonical) or by JSON.parse + schema validation (general)',
      labelNames: ['path'],
    }),
    drops: counterOn(registry, {
      name: 'chatlytics_consumer_drops_total', help: 'Messages left out as carrying no event (not poison), by reason (step.ts DropReason)',
      labelNames: ['reason'],
    }),
    // Counters, not a histogram: the runner sums each step's time over a batch and adds it once
    // (an observation per message would cost more than the fast path itself). Seconds divided by
    // messages is the mean cost of a step per message that reached it.
    stepSeconds: counterOn(registry, {
      name: 'chatlytics_consumer_step_seconds_total', help: 'Time spent in each pipeline step, by step', labelNames: ['step'],
    }),
    stepMessages: counterOn(registry, {
      name: 'chatlytics_consumer_step_messages_total', help: 'Messages that entered each pipeline step, by step', labelNames: ['step'],
    }),
  };
}

/**
 * The lag gauges, read through the probe when Prometheus scrapes (no polling in between): per
 * partition in messages, across the group in seconds (the oldest unstored event's age), and
 * that age as a fraction of the bus's retention, so an outage is noticed long before events expire.
 */
export function registerLagMetrics(registry: Registry, probe: LagProbe): void {
  const names = ['chatlytics_consumer_lag_messages', 'chatlytics_consumer_lag_seconds', 'chatlytics_consumer_lag_retention_ratio'];
  for (const name of names) registry.removeSingleMetric(name);
  // An unreachable bus already shows in /ready; a scrape must not fail because of it.
  const read = () => probe.report().catch(() => undefined);
  new Gauge({
    name: names[0], help: 'Messages published to the events stream and not yet committed by the consumer group, per partition',
    labelNames: ['partition'], registers: [registry],
    async collect() {
      const r = await read();
      if (!r) return;
      this.reset();
      for (const p of r.partitions) this.set({ partition: String(p.partition) }, p.messages);
    },
  });
  new Gauge({
    name: names[1], help: 'Age of the oldest acknowledged event not yet stored in ClickHouse (across the consumer group; 0 when none waits)',
    registers: [registry],
    async collect() {
      if (await read()) this.set((await probe.status()).lag_seconds);
    },
  });
  new Gauge({
    name: names[2], help: 'chatlytics_consumer_lag_seconds as a fraction of the events topic retention (1 = events start to expire unstored; 0 on a bus that never deletes unconsumed events)',
    registers: [registry],
    async collect() {
      const r = await read();
      if (!r || r.retentionMs === null) return;
      this.set((await probe.status()).retention_used ?? 0);
    },
  });
}
