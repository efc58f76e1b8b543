import type { BusMessage, EventBus } from '@chatlytics/bus';
import type { IngestMetrics } from './metrics.js';

/**
 * Why these numbers:
 * - No time window: a batch is what arrived while the previous ones were in flight (group
 *   commit, as PostgreSQL and Kafka do it). An idle publisher sends at the end of the current
 *   I/O phase, so every request parsed in that phase shares the call; latency follows the
 *   bus (one fsync, one produce round trip), not a timer.
 * - maxInFlight 4: Kafka pipelines produce requests, so a few batches in flight keep the
 *   brokers busy during one acks=all round trip; the embedded log merges whatever is queued
 *   behind its fsync into the next one anyway.
 * - maxBatchEvents 1024 / maxBatchBytes 512 KiB: Kafka refuses a record batch above
 *   message.max.bytes (1 MiB by default); half of it leaves room for framing.
 * - maxPendingEvents 10,000 / maxPendingBytes 16 MiB: the overload bound. Beyond it the bus
 *   is not keeping up (disk stalled, broker away), so a request is answered 503 at once
 *   instead of waiting behind everyone else; 10,000 is ten times the 1,000 connections the
 *   benchmark holds open, and at 16 MiB the queue stays well inside the 200 MB RSS budget.
 * - maxWaitMs 7,000: every request is answered within it, whatever the bus does. A batch
 *   waits behind the ones in flight, so without a bound of its own a request could wait for
 *   several bus deadlines (Kafka's is 5 s each) and outlive the HTTP idle timeout (10 s):
 *   the client saw a dropped connection instead of a 503. Above 5 s, so that a batch sent at
 *   once is answered by the bus itself; below 10 s, so the 503 always arrives.
 */
export interface PublisherBounds {
  maxInFlight: number;
  maxBatchEvents: number;
  maxBatchBytes: number;
  maxPendingEvents: number;
  maxPendingBytes: number;
  maxWaitMs: number;
}

export const PUBLISHER_DEFAULTS: Readonly<PublisherBounds> = Object.freeze({
  maxInFlight: 4,
  maxBatchEvents: 1024,
  maxBatchBytes: 512 * 1024,
  maxPendingEvents: 10_000,
  maxPendingBytes: 16 * 1024 * 1024,
  maxWaitMs: 7000,
});

export interface PublisherOptions extends Partial<PublisherBounds> {
  bus: Pick<EventBus, 'publish'>;
  /** Batch size histogram and published / failed counters (see metrics.ts). */
  metrics?: Pick<IngestMetrics, 'batchSize' | 'published' | 'publishFailed' | 'timedOut'>;
}

export class PublisherClosedError extends Error {
  override name = 'PublisherClosedError';
  readonly retriable = true;
  constructor() {
    super('publisher is draining; no new events accepted');
  }
}

/** More events wait for the bus than the overload bound allows: answer 503 now, not later. */
export class PublisherOverloadedError extends Error {
  override name = 'PublisherOverloadedError';
  readonly retriable = true;
  constructor(pending: number) {
    super(`${pending} events are already waiting for the bus`);
  }
}

/**
 * The bus did not acknowledge within maxWaitMs. An event still queued is withdrawn (never
 * sent); one in a batch in flight may still become durable, so a client's retry carrying the
 * same data.event_id is counted once.
 */
export class PublisherTimeoutError extends Error {
  override name = 'PublisherTimeoutError';
  readonly retriable = true;
  constructor(waitedMs: number) {
    super(`the bus did not acknowledge within ${waitedMs} ms`);
  }
}

interface Waiter { message: BusMessage; at: number; resolve(): void; reject(err: unknown): void }

/**
 * Collects concurrent publish() calls into few bus.publish calls. Each caller's promise
 * settles with its batch: resolved once the whole batch is durable, rejected (every caller of
 * the batch) when the bus refuses it, so a 200 is never sent for a lost event. The bus keeps
 * per-key order within a batch, and a user's next beacon only starts after the previous one
 * was answered.
 */
export class EventPublisher {
  private readonly opts: PublisherBounds & Pick<PublisherOptions, 'bus' | 'metrics'>;
  private queue: Waiter[] = [];
  private expiry?: NodeJS.Timeout;
  private queuedBytes = 0;
  private scheduled = false;
  /** Each batch in flight, by the promise that settles when the bus has answered it. */
  private readonly inFlight = new Map<Promise<void>, Waiter[]>();
  private inFlightEvents = 0;
  private inFlightBytes = 0;
  private closed = false;

  constructor(opts: PublisherOptions) {
    this.opts = { ...PUBLISHER_DEFAULTS, ...opts };
  }

  /** Resolves when the message is durable in the bus; rejects with the bus error otherwise. */
  publish(message: BusMessage): Promise<void> {
    if (this.closed) return Promise.reject(new PublisherClosedError());
    const pending = this.queue.length + this.inFlightEvents;
    if (pending >= this.opts.maxPendingEvents || this.queuedBytes + this.inFlightBytes >= this.opts.maxPendingBytes) {
      return Promise.reject(new PublisherOverloadedError(pending));
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ message, at: Date.now(), resolve, reject });
      this.queuedBytes += message.value.length;
      this.expiry ??= setTimeout(() => this.expire(), this.opts.maxWaitMs);
      if (this.inFlight.size >= this.opts.maxInFlight) return; // a settling batch sends the queue
      if (this.queue.length >= this.opts.maxBatchEvents || this.queuedBytes >= this.opts.maxBatchBytes) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => { this.scheduled = false; this.flush(); });
      }
    });
  }

  /** Events accepted but not yet acknowledged by the bus (queued or in a batch in flight). */
  get pendingEvents(): number {
    return this.queue.length + this.inFlightEvents;
  }

  /**
   * Graceful shutdown: stop accepting, send what is queued now, and wait until every batch
   * has settled (so every waiting request got its answer before the bus is closed).
   */
  async drain(): Promise<void> {
    this.closed = true;
    this.flush();
    while (this.inFlight.size > 0) {
      await Promise.allSettled([...this.inFlight.keys()]);
      this.flush();
    }
  }

  private flush(): void {
    while (this.queue.length > 0 && (this.inFlight.size < this.opts.maxInFlight || this.closed)) {
      const batch = this.takeBatch();
      const bytes = batch.reduce((sum, w) => sum + w.message.value.length, 0);
      this.inFlightEvents += batch.length;
      this.inFlightBytes += bytes;
      const sent = this.send(batch).finally(() => {
        this.inFlight.delete(sent);
        // The timer exists only while something waits: an idle publisher holds no handle.
        if (this.expiry && this.queue.length === 0 && this.inFlight.size === 0) {
          clearTimeout(this.expiry);
          this.expiry = undefined;
        }
        this.inFlightEvents -= batch.length;
        this.inFlightBytes -= bytes;
        // What gathered while this batch was in flight goes out now.
        if (!this.closed) this.flush();
      });
      this.inFlight.set(sent, batch);
    }
  }

  /**
   * Answers every waiter older than maxWaitMs with PublisherTimeoutError, then re-arms for
   * the oldest one left. One timer per publisher, not per request: at tens of thousands of
   * requests a second a timer each would cost more than the publish.
   */
  private expire(): void {
    this.expiry = undefined;
    const now = Date.now();
    const limit = now - this.opts.maxWaitMs;
    let timedOut = 0;
    let oldest = Infinity;
    for (const batch of this.inFlight.values()) {
      for (const w of batch) {
        if (w.at <= limit) {
          // Promise settlement is first-wins: the batch's later answer does not reach this caller.
          w.reject(new PublisherTimeoutError(now - w.at));
          timedOut++;
          // Answered: a time no limit reaches keeps it from timing out twice or arming the timer.
          w.at = Infinity;
        } else if (w.at < oldest) oldest = w.at;
      }
    }
    // The queue is in arrival order: the expired waiters are a prefix, withdrawn unsent.
    let n = 0;
    while (n < this.queue.length && this.queue[n].at <= limit) {
      const w = this.queue[n++];
      this.queuedBytes -= w.message.value.length;
      w.reject(new PublisherTimeoutError(now - w.at));
    }
    if (n > 0) this.queue.splice(0, n);
    timedOut += n;
    if (timedOut > 0) this.opts.metrics?.timedOut.inc(timedOut);
    if (this.queue.length > 0 && this.queue[0].at < oldest) oldest = this.queue[0].at;
    if (oldest !== Infinity) this.expiry = setTimeout(() => this.expire(), Math.max(1, oldest + this.opts.maxWaitMs - now));
  }

  private takeBatch(): Waiter[] {
    let n = 0;
    let bytes = 0;
    const { maxBatchEvents, maxBatchBytes } = this.opts;
    while (n < this.queue.length && n < maxBatchEvents && (n === 0 || bytes + this.queue[n].message.value.length <= maxBatchBytes)) {
      bytes += this.queue[n].message.value.length;
      n++;
    }
    this.queuedBytes -= bytes;
    if (n < this.queue.length) return this.queue.splice(0, n);
    const all = this.queue;
    this.queue = [];
    return all;
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
