import { createLogger } from '@chatlytics/core';
import type { BatchHandler, BusMessage, ConsumedBatch, ConsumedMessage } from '../src/index.js';

/** Tests are entry points: TEST_LOG_LEVEL=debug shows the bus' logs when a test misbehaves. */
export const testLog = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

/** Fast back-off so redelivery cases take milliseconds; nothing asserts on durations. */
export const testBackoff = { initialMs: 10, maxMs: 50 };

export interface Payload { run: string; key: string; seq: number }

export function message(run: string, key: string, seq: number, padTo = 0): BusMessage {
  const body: Payload & { pad?: string } = { run, key, seq };
  if (padTo > 0) body.pad = 'x'.repeat(padTo);
  return { key, value: Buffer.from(JSON.stringify(body)) };
}

export function payload(m: ConsumedMessage): Payload {
  return JSON.parse(m.value.toString('utf8')) as Payload;
}

export const idOf = (m: ConsumedMessage) => { const p = payload(m); return `${p.key}:${p.seq}`; };

/** Upper bound on waiting for deliveries: a guard against hanging, never an assertion on speed. */
export const WAIT_LIMIT_MS = 60_000;

/**
 * Records every delivery; `accepted` holds messages whose handler call resolved. An optional
 * `behaviour` runs first and may throw to reject the batch.
 */
export class Collector {
  readonly deliveries: ConsumedBatch[] = [];
  readonly accepted: ConsumedMessage[] = [];
  behaviour?: (batch: ConsumedBatch, attempt: number) => Promise<void> | void;
  private waiters: { n: number; resolve: () => void }[] = [];

  readonly handler: BatchHandler = async (batch) => {
    this.deliveries.push(batch);
    await this.behaviour?.(batch, this.deliveries.length);
    this.accepted.push(...batch.messages);
    this.waiters = this.waiters.filter((w) => (this.accepted.length >= w.n ? (w.resolve(), false) : true));
  };

  /** Resolves once at least `n` messages were accepted. */
  until(n: number): Promise<void> {
    if (this.accepted.length >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${this.accepted.length} of ${n} messages arrived`)), WAIT_LIMIT_MS);
      this.waiters.push({ n, resolve: () => { clearTimeout(timer); resolve(); } });
    });
  }
}

/** Waits until the wall clock has moved past `t`, so later bus timestamps are strictly greater. */
export async function clockPast(t: number): Promise<void> {
  while (Date.now() <= t) await new Promise((r) => setTimeout(r, 1));
}
