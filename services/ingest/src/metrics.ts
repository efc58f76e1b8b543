import type { Counter, Histogram } from 'prom-client';
import { counterOn, histogramOn, type Registry } from '@chatlytics/core';

export interface IngestMetrics {
  accepted: Counter<never>;
  rejected: Counter<'reason'>;
  published: Counter<never>;
  publishFailed: Counter<never>;
  timedOut: Counter<never>;
  batchSize: Histogram<never>;
  setAside: Counter<'reason'>;
  policyReadFailures: Counter<never>;
}

export function createIngestMetrics(registry: Registry): IngestMetrics {
  return {
    accepted: counterOn(registry, { name: 'chatlytics_ingest_events_accepted_total', help: 'Tracking events answered 200 (durable in the bus)' }),
    rejected: counterOn(registry, { name: 'chatlytics_ingest_events_rejected_total', help: 'Tracking requests refused, by reason code', labelNames: ['reason'] }),
    published: counterOn(registry, { name: 'chatlytics_ingest_events_published_total', help: 'Events the bus acknowledged as durable' }),
    publishFailed: counterOn(registry, { name: 'chatlytics_ingest_events_publish_failed_total', help: 'Events whose batch the bus refused (answered 503)' }),
    timedOut: counterOn(registry, { name: 'chatlytics_ingest_events_timed_out_total', help: 'Events answered 503 because the bus had not acknowledged them within the wait bound' }),
    // Powers of two up to the publisher's batch cap: shows whether batching actually happens.
    setAside: counterOn(registry, { name: 'chatlytics_ingest_purchases_set_aside_total', help: 'Purchases accepted but set aside (not counted as revenue), by reason', labelNames: ['reason'] }),
    policyReadFailures: counterOn(registry, { name: 'chatlytics_ingest_policy_read_failures_total', help: "Failed reads of a chatbot's settings (tracking went on with the last known settings or the defaults)" }),
    batchSize: histogramOn(registry, { name: 'chatlytics_ingest_publish_batch_size', help: 'Events per bus.publish call', buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256] }),
  };
}
