import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * The consumer's metrics (see the operations endpoints in packages/core/README.md: written / rejected by reason / deduplicated, batch sizes,
 * lag). Get-or-create, because the standalone process and the tests build more than one
 * consumer or replay on one registry.
 */
function getOrCreate<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

export interface ConsumerMetrics {
  rowsWritten: Counter;
  rejects: Counter<'reason'>;
  duplicates: Counter<'where'>;
  batchRows: Histogram;
  insertSeconds: Histogram;
  freshnessSeconds: Histogram;
  retries: Counter<'operation'>;
  flushes: Counter<'trigger'>;
  decoded: Counter<'path'>;
}

export function createConsumerMetrics(registry: Registry): ConsumerMetrics {
  const registers = [registry];
  return {
    rowsWritten: getOrCreate(registry, 'chatlytics_consumer_rows_written_total', () => new Counter({
      name: 'chatlytics_consumer_rows_written_total', help: 'Rows inserted into ClickHouse events (acknowledged)', registers,
    })),
    rejects: getOrCreate(registry, 'chatlytics_consumer_rejects_total', () => new Counter({
      name: 'chatlytics_consumer_rejects_total', help: 'Poison messages sent to the dead-letter stream and events_rejected, by reason', labelNames: ['reason'] as const, registers,
    })),
    duplicates: getOrCreate(registry, 'chatlytics_consumer_duplicates_total', () => new Counter({
      name: 'chatlytics_consumer_duplicates_total',
      help: 'Rows left out because their event_id was already in the same insert (batch), inserted recently by this process (recent), or found stored after a redelivery (stored)',
      labelNames: ['where'] as const, registers,
    })),
    // Rows per INSERT: the buckets straddle the flush sizes (see InsertBufferOptions.maxRows).
    batchRows: getOrCreate(registry, 'chatlytics_consumer_insert_rows', () => new Histogram({
      name: 'chatlytics_consumer_insert_rows', help: 'Rows per INSERT into events',
      buckets: [10, 100, 500, 1000, 2500, 5000, 10000, 20000, 50000, 100000], registers,
    })),
    insertSeconds: getOrCreate(registry, 'chatlytics_consumer_insert_duration_seconds', () => new Histogram({
      name: 'chatlytics_consumer_insert_duration_seconds', help: 'Latency of one successful INSERT into events',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers,
    })),
    // Per bus batch, its oldest message: the worst case the dashboard can see.
    freshnessSeconds: getOrCreate(registry, 'chatlytics_consumer_freshness_seconds', () => new Histogram({
      name: 'chatlytics_consumer_freshness_seconds', help: 'Bus acceptance to ClickHouse acknowledgement, oldest message of each bus batch',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300], registers,
    })),
    retries: getOrCreate(registry, 'chatlytics_consumer_retries_total', () => new Counter({
      name: 'chatlytics_consumer_retries_total', help: 'Retriable failures backed off from, by operation', labelNames: ['operation'] as const, registers,
    })),
    flushes: getOrCreate(registry, 'chatlytics_consumer_flushes_total', () => new Counter({
      name: 'chatlytics_consumer_flushes_total', help: 'Flushes of the shared insert buffer, by what triggered them', labelNames: ['trigger'] as const, registers,
    })),
    // A falling canonical share means the producer's serialisation changed (key order, escaping):
    // nothing is lost, the general path takes over, but each event then costs ~2× the CPU.
    decoded: getOrCreate(registry, 'chatlytics_consumer_decoded_total', () => new Counter({
      name: 'chatlytics_consumer_decoded_total',
      help: 'Messages decoded by the canonical transcoder (canonical) or by JSON.parse + schema validation (general)',
      labelNames: ['path'] as const, registers,
    })),
  };
}

/** Consumer lag, read from the bus when Prometheus scrapes (no polling in between). */
export function registerLagGauge(registry: Registry, lag: () => Promise<number>): void {
  const name = 'chatlytics_consumer_lag_messages';
  registry.removeSingleMetric(name);
  new Gauge({
    name, help: 'Messages published to the events stream and not yet committed by the consumer group', registers: [registry],
    async collect() {
      try {
        this.set(await lag());
      } catch {
        // An unreachable bus already shows in /ready; a scrape must not fail because of it.
      }
    },
  });
}
