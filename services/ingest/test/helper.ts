import Fastify, { type FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import type { BusMessage, ConsumerHandle, EventBus, LagReport } from '@chatlytics/bus';
import { loadConfig, type Config } from '@chatlytics/core';
import { decodeStoredEvent, type StoredEvent } from '@chatlytics/events';
import { ingestApp, type IngestAppOptions } from '../src/app.js';

/**
 * An in-memory EventBus: records every publish call (so tests can count batches), can be made
 * to refuse publishes (bus down) or to hold them until released (to let requests pile up).
 */
export class FakeBus implements EventBus {
  readonly kind = 'embedded' as const;
  readonly calls: BusMessage[][] = [];
  failure: Error | undefined;
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;

  async publish(messages: BusMessage[]): Promise<void> {
    if (this.gate) await this.gate;
    if (this.failure) throw this.failure;
    this.calls.push(messages);
  }
  /** Every published event, decoded and checked against the StoredEvent schema. */
  events(): StoredEvent[] {
    return this.calls.flat().map((m) => {
      const decoded = decodeStoredEvent(m.value);
      if (!decoded.ok) throw new Error(`bus received an invalid event: ${JSON.stringify(decoded.errors)}`);
      return decoded.event;
    });
  }
  hold(): void {
    this.gate = new Promise((resolve) => { this.openGate = resolve; });
  }
  release(): void {
    this.openGate?.();
    this.gate = undefined;
  }
  async prepare(): Promise<void> {}
  async publishDeadLetter(): Promise<void> {}
  async consume(): Promise<ConsumerHandle> { return { stop: async () => {} }; }
  async replay(): Promise<number> { return 0; }
  async lag(): Promise<number> { return 0; }
  async lagReport(): Promise<LagReport> { return { partitions: [], oldestUncommittedAt: null, retentionMs: null }; }
  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

/** Configuration as the entry point would parse it, from environment-style overrides. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ DATA_DIR: '/tmp/chatlytics-ingest-test-unused', TRACK_RATE_LIMIT_PER_MINUTE: '100000', ...env });
}

export interface Built {
  app: FastifyInstance;
  bus: FakeBus;
  registry: Registry;
}

export async function buildIngest(opts: {
  env?: Record<string, string>;
  trustProxy?: string[] | boolean;
  bus?: EventBus;
} & Partial<Omit<IngestAppOptions, 'config' | 'bus'>> = {}): Promise<Built> {
  const { env, trustProxy, bus: givenBus, ...rest } = opts;
  const bus = (givenBus ?? new FakeBus()) as FakeBus;
  const registry = rest.registry ?? new Registry();
  const app = Fastify({ logger: false, trustProxy: trustProxy ?? false });
  await app.register(ingestApp, { config: testConfig(env), bus, registry, clientHashSecret: 'test-secret-of-enough-length', ...rest });
  await app.ready();
  return { app, bus, registry };
}

export const TOKEN = 'tok_test-1230';

/** The value of one sample of a metric, for assertions on counters and histograms. */
export async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  // Histogram series (_count, _sum, _bucket) live under the metric's base name.
  const metric = await registry.getSingleMetricAsString(name.replace(/_(count|sum|bucket)$/, '')).catch(() => '');
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of metric.split('\n')) {
    const [series, value] = line.split(' ');
    if (series !== name && !series.startsWith(`${name}{`)) continue;
    if (want.every((w) => series.includes(w))) return Number(value);
  }
  return 0;
}
