import { Counter, Histogram, type Registry } from 'prom-client';

export interface IngestMetrics {
  accepted: Counter<never>;
  rejected: Counter<'reason'>;
  published: Counter<never>;
  publishFailed: Counter<never>;
  batchSize: Histogram<never>;
}

/**
 * Reuses a metric already on the registry: the standalone process may build the app more than
 * once on one registry (tests, restarts of the plugin), and prom-client refuses duplicates.
 */
function once<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function createIngestMetrics(registry: Registry): IngestMetrics {
  const registers = [registry];
  return {
    accepted: once(registry, 'chatlytics_ingest_events_accepted_total', () => new Counter({
      name: 'chatlytics_ingest_events_accepted_total', help: 'Tracking events answered 200 (durable in the bus)', registers,
    })),
    rejected: once(registry, 'chatlytics_ingest_events_rejected_total', () => new Counter({
      name: 'chatlytics_ingest_events_rejected_total', help: 'Tracking requests refused, by reason code', labelNames: ['reason'] as const, registers,
    })),
    published: once(registry, 'chatlytics_ingest_events_published_total', () => new Counter({
      name: 'chatlytics_ingest_events_published_total', help: 'Events the bus acknowledged as durable', registers,
    })),
    publishFailed: once(registry, 'chatlytics_ingest_events_publish_failed_total', () => new Counter({
      name: 'chatlytics_ingest_events_publish_failed_total', help: 'Events whose batch the bus refused (answered 503)', registers,
    })),
    // Powers of two up to the publisher's batch cap: shows whether batching actually happens.
    batchSize: once(registry, 'chatlytics_ingest_publish_batch_size', () => new Histogram({
      name: 'chatlytics_ingest_publish_batch_size', help: 'Events per bus.publish call', buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256], registers,
    })),
  };
}
