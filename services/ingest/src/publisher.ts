import type { BusMessage, EventBus } from '@chatlytics/bus';
import type { IngestMetrics } from './metrics.js';

/**
 * Why these numbers:
 * - maxDelayMs 2: the wait a lone event pays before its batch goes out. Small next to the
 *   25 ms p99 budget and to one fsync / Kafka round trip (1-5 ms), yet at a few thousand
 *   requests per second it gathers tens of events per publish call.
 * - maxBatchEvents 256: a few hundred events amortise the per-call cost (one fsync, one produce
 *   request) almost completely; beyond that, bigger batches only add latency for the first ones.
 * - maxBatchBytes 512 KiB: Kafka refuses a record batch above message.max.bytes (1 MiB by
 *   default); half of it leaves room for framing even if every message lands on one partition.
 */
export const PUBLISHER_DEFAULTS = Object.freeze({ maxDelayMs: 2, maxBatchEvents: 256, maxBatchBytes: 512 * 1024 });

export interface PublisherOptions {
  bus: Pick<EventBus, 'publish'>;
  maxDelayMs?: number;
  maxBatchEvents?: number;
  maxBatchBytes?: number;
  /** Batch size histogram and published / failed counters (see metrics.ts). */
  metrics?: Pick<IngestMetrics, 'batchSize' | 'published' | 'publishFailed'>;
}

export class PublisherClosedError extends Error {
  override name = 'PublisherClosedError';
  readonly retriable = true;
  constructor() {
    super('publisher is draining; no new events accepted');
  }
}

interface Waiter { message: BusMessage; resolve(): void; reject(err: unknown): void }

/**
 * Collects concurrent publish() calls into one bus.publish (micro-batching). Each caller's
 * promise settles with its batch: resolved once the whole batch is durable, rejected (every
 * caller of the batch) when the bus refuses it, so a 200 is never sent for a lost event.
 * Batches may be in flight concurrently; the bus keeps per-key order within a batch and a
 * user's next beacon only starts after the previous one was answered.
 */
export class EventPublisher {
  private readonly opts: Required<Omit<PublisherOptions, 'metrics'>> & Pick<PublisherOptions, 'metrics'>;
  private queue: Waiter[] = [];
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(opts: PublisherOptions) {
    this.opts = { ...PUBLISHER_DEFAULTS, ...opts };
  }

  /** Resolves when the message is durable in the bus; rejects with the bus error otherwise. */
  publish(message: BusMessage): Promise<void> {
    if (this.closed) return Promise.reject(new PublisherClosedError());
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ message, resolve, reject });
      this.queuedBytes += message.value.length;
      if (this.queue.length >= this.opts.maxBatchEvents || this.queuedBytes >= this.opts.maxBatchBytes) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.opts.maxDelayMs);
    });
  }

  /** Events waiting for their batch or in a batch not yet acknowledged. */
  get pendingBatches(): number {
    return this.inFlight.size + (this.queue.length > 0 ? 1 : 0);
  }

  /**
   * Graceful shutdown: stop accepting, send what is queued now, and wait until every batch
   * has settled (so every waiting request got its answer before the bus is closed).
   */
  async drain(): Promise<void> {
    this.closed = true;
    this.flush();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    const sent = this.send(batch);
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
  }

  private async send(batch: Waiter[]): Promise<void> {
    const { metrics } = this.opts;
    metrics?.batchSize.observe(batch.length);
    try {
      await this.opts.bus.publish(batch.map((w) => w.message));
    } catch (err) {
      metrics?.publishFailed.inc(batch.length);
      for (const w of batch) w.reject(err);
      return;
    }
    metrics?.published.inc(batch.length);
    for (const w of batch) w.resolve();
  }
}

export function createPublisher(opts: PublisherOptions): EventPublisher {
  return new EventPublisher(opts);
}
