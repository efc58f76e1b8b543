import { createLogger, loadConfig } from '@chatlytics/core';
import type { EventBus } from '@chatlytics/bus';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { createConsumer, type ConsumerOptions } from '../src/consumer.js';
import { createMessagePipeline, createMessageSteps } from '../src/pipeline.js';

export const silent = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
export const testConfig = loadConfig({}, '/tmp');

/** Small batches and millisecond back-off: the tests run the real logic, only faster. */
export const FAST: Partial<ConsumerOptions> = {
  maxRows: 500, maxAgeMs: 20, minRowsWhenAllWaiting: 50, backoff: { baseMs: 1, maxMs: 20 }, stopGraceMs: 2_000,
};

export function consumerFor(bus: EventBus, clickhouse: ClickHouseEngine, options: Partial<ConsumerOptions> = {}) {
  return createConsumer({ config: testConfig, bus, clickhouse, log: silent, options: { ...FAST, ...options } });
}

/** Polls until `done()` (bounded): the tests wait for an outcome, never for a duration. */
export async function until(done: () => boolean | Promise<boolean>, what: string, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The consumer's message steps, without metrics: what toSegment runs in the unit tests. */
export const testPipeline = () => createMessagePipeline(createMessageSteps());
