import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { EventBus } from '@chatlytics/bus';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { opsPlugin, type ReadinessCheck, type Registry } from '@chatlytics/core';
import type { Consumer } from './consumer.js';

export { createConsumer, DEFAULT_CONSUMER_OPTIONS } from './consumer.js';
export type { Consumer, ConsumerDeps, ConsumerOptions, ConsumerStats } from './consumer.js';
export { replay, runReplayCommand } from './replay.js';
export type { ReplayDeps, ReplaySummary, ReplayCommandDeps, ReplayStream } from './replay.js';
export { RejectReason, ConsumerError, ConsumerErrorCode } from './errors.js';
export { unwrapDeadLetter } from './dead-letter.js';

export interface ConsumerAppOptions {
  registry: Registry;
  bus: EventBus;
  clickhouse: ClickHouseEngine;
  consumer: Consumer;
  /** METRICS_TOKEN (config.metricsToken): who may read /metrics, see the core's metricsAccess. */
  metricsToken?: string;
}

/**
 * The readiness checks of the consumer: its two stores, the lag, and the pipeline itself. The
 * lag is `degraded` (still 200) once its oldest unstored event passed CONSUMER_LAG_ALERT_SECONDS.
 */
export function consumerReadinessChecks(opts: Omit<ConsumerAppOptions, 'registry'>): ReadinessCheck[] {
  return [
    { name: 'clickhouse', check: async () => { if (!(await opts.clickhouse.ping())) throw new Error('ClickHouse did not answer'); } },
    { name: 'bus', check: async () => { await opts.bus.ping(); return { consumer_lag: await opts.bus.lag() }; } },
    {
      name: 'lag',
      check: async () => {
        const { degraded, ...lag } = await opts.consumer.lag();
        return { ...lag, status: degraded ? 'degraded' : 'ok' };
      },
    },
    {
      name: 'consumer',
      check: async () => {
        const stats = opts.consumer.stats();
        if (!stats.running) throw new Error('the consumer is not running');
        return { rows_written: stats.rowsWritten, rejected: stats.rejected, last_flush_at: stats.lastFlushAt };
      },
    },
  ];
}

/**
 * The consumer service's HTTP surface: only /health, /ready and /metrics (the pipeline itself
 * has no routes). The entry point registers it; tests build the same app.
 */
export const consumerApp = fp(async (app: FastifyInstance, opts: ConsumerAppOptions) => {
  await app.register(opsPlugin, { registry: opts.registry, checks: consumerReadinessChecks(opts), metricsToken: opts.metricsToken });
}, { name: 'chatlytics-consumer' });
