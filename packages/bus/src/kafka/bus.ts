import type { Config, Logger, Registry } from '@chatlytics/core';
import type { BatchHandler, ConsumerHandle, EventBus, ReplayOptions } from '../types.js';
import { BusUnavailableError } from '../errors.js';
import { createBusMetrics } from '../metrics.js';
import { DEFAULT_BACKOFF, type BackoffOptions } from '../delivery.js';
import { createKafkaClient, DEFAULT_TIMEOUTS, type KafkaTimeouts } from './client.js';
import { KafkaAdmin } from './admin.js';
import { KafkaPublisher } from './producer.js';
import { startKafkaConsumer } from './consumer.js';
import { replayKafka } from './replay.js';

export interface KafkaBusOptions {
  kafka: Config['kafka'];
  clientId?: string;
  log: Logger;
  registry?: Registry;
  timeouts?: Partial<KafkaTimeouts>;
  retryBackoff?: BackoffOptions;
  /** Partitions whose batches are handled at the same time (default 4; each partition stays sequential). */
  partitionsConsumedConcurrently?: number;
  /** A replay gives up after its handler rejected the same batch this many times (default 5). */
  replayMaxAttempts?: number;
  /** Consumer group session timeout (default 30 s; brokers accept 6 s and up by default). */
  sessionTimeoutMs?: number;
}

/**
 * Kafka through kafkajs. Nothing connects until prepare() or first use, so creating the bus
 * never blocks on a broker; the ingest entry point calls prepare() before it listens.
 */
export function createKafkaBus(opts: KafkaBusOptions): EventBus {
  const log = opts.log.child({ component: 'bus', bus: 'kafka' });
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const metrics = createBusMetrics(opts.registry);
  const backoff = opts.retryBackoff ?? DEFAULT_BACKOFF;
  const kafka = createKafkaClient(opts.kafka, opts.clientId ?? 'chatlytics', timeouts, log);
  const admin = new KafkaAdmin(kafka, opts.kafka, timeouts, log);
  const publisher = new KafkaPublisher(kafka, opts.kafka, admin, timeouts, log, metrics);
  const consumers = new Set<ConsumerHandle>();
  const replays = new Set<Promise<unknown>>();
  const closing = new AbortController();
  let closed = false;
  const ensureOpen = () => {
    if (closed) throw new BusUnavailableError('kafka bus is closed');
  };

  return {
    kind: 'kafka',
    publish: (messages) => publisher.publish('events', messages),
    publishDeadLetter: (messages) => publisher.publish('dead-letter', messages),

    async prepare() {
      ensureOpen();
      await admin.ensureTopics();
      await publisher.prepare();
    },

    async consume(handler: BatchHandler) {
      ensureOpen();
      const inner = await startKafkaConsumer({
        kafka, cfg: opts.kafka, admin, log, metrics, backoff,
        partitionsConsumedConcurrently: opts.partitionsConsumedConcurrently ?? 4,
        sessionTimeoutMs: opts.sessionTimeoutMs,
      }, handler);
      const handle: ConsumerHandle = {
        async stop() {
          consumers.delete(handle);
          await inner.stop();
        },
      };
      consumers.add(handle);
      return handle;
    },

    async replay(replayOpts: ReplayOptions) {
      ensureOpen();
      const run = replayKafka({
        kafka, cfg: opts.kafka, admin, log, backoff, maxAttempts: opts.replayMaxAttempts ?? 5, signal: closing.signal,
        sessionTimeoutMs: opts.sessionTimeoutMs,
      }, replayOpts);
      replays.add(run);
      try { return await run; } finally { replays.delete(run); }
    },

    async lag() {
      ensureOpen();
      // With topic creation on, a fresh cluster has no topics until the first publish; lag is 0 then, not an error.
      await admin.ensureTopics();
      return admin.lag();
    },

    async lagReport() {
      ensureOpen();
      await admin.ensureTopics();
      return admin.lagReport();
    },

    async ping() {
      ensureOpen();
      await admin.ping();
    },

    async close() {
      if (closed) return;
      closed = true;
      closing.abort();
      await Promise.allSettled([...consumers].map((c) => c.stop()));
      await Promise.allSettled(replays);
      await publisher.close();
      await admin.close();
    },
  };
}
