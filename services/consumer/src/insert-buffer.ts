import { segmentKey, type Segment } from './segment.js';

export type FlushTrigger = 'size' | 'age' | 'all-waiting' | 'stop';

export interface InsertBufferOptions {
  /**
   * Flush once this many rows wait. ClickHouse wants few, large inserts (every INSERT is a
   * new part to merge; ≥ 1,000 rows and about one insert per second per table is its own
   * advice, and background merges of small parts cost the consumer's own CPU on a small
   * machine). 100,000 rows is ~40 MB of RowBinary plus the bus values kept for dead-lettering:
   * at 100k events/s about one insert a second. A single-partition bus (the embedded log) hands
   * over batches of ≤ 100k, so there a flush is one bus batch; with Kafka, several
   * partitions' batches coalesce up to it.
   */
  maxRows: number;
  /** Flush the oldest waiting batch after this long at most (freshness target ≤ 2 s end to end). */
  maxAgeMs: number;
  /**
   * Flush early when every recently active partition already waits here: each partition
   * delivers its next batch only after this flush commits, so the buffer cannot grow any
   * more and waiting would only add latency. Early only with at least this many rows, or
   * when the messages are already older than maxAgeMs (a backlog: the bus has more waiting).
   * Otherwise a trickle of tiny fresh batches (low traffic) coalesces until maxAgeMs rather
   * than becoming many tiny parts: the longer we wait, the bigger each next bus batch gets.
   */
  minRowsWhenAllWaiting: number;
  /** A partition silent for this long no longer counts as active (a revoked or idle one). */
  activeWindowMs: number;
  /**
   * Flushes that may be written at once (≥ 1). Two let ClickHouse insert one flush while it
   * finishes the previous one: on 2 cores a single insert left the JavaScript thread idle half
   * the time under backlog (bench:pipeline: 68–72k → 79–82k events/s with two). Offsets still
   * commit in order: the bus commits a partition's batches oldest first, each only after its
   * own flush and every older one were acknowledged (and Kafka never hands over a partition's
   * next batch before this one's handler returned).
   */
  concurrentWrites?: number;
  /** Inserts the segments; rejecting rejects every waiting handler (nothing is committed). */
  write(segments: Segment[], trigger: FlushTrigger): Promise<void>;
  now?: () => number;
}

interface Waiter {
  segment: Segment;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * The buffer shared by every partition's handler. A handler adds its segment and awaits the
 * flush that contains it; only once ClickHouse acknowledged that INSERT do all its handlers
 * resolve, so every offset commits after its rows are durable. At most `concurrentWrites`
 * writes at a time: while they run, new segments keep accumulating (a flush due meanwhile
 * starts when one ends).
 */
export class InsertBuffer {
  private pending: Waiter[] = [];
  private pendingRows = 0;
  private oldestBusTimestamp = Infinity;
  private timer: NodeJS.Timeout | undefined;
  private readonly lastSeen = new Map<string, number>();
  private readonly writes = new Set<Promise<void>>();
  /** A flush was triggered while every write slot was busy: it starts as soon as one ends. */
  private due: FlushTrigger | undefined;
  private immediate = false;
  private readonly now: () => number;

  constructor(private readonly opts: InsertBufferOptions) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * Resolves once the segment's rows (and rejects) are durable; rejects when its flush failed.
   * `abandoned`: the bus gave the partition away; a segment still waiting is taken back out
   * (rejected), so this process does not insert rows the partition's next owner delivers again.
   */
  add(segment: Segment, abandoned?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { segment, resolve, reject };
      if (abandoned?.aborted) {
        reject(abandoned.reason);
        return;
      }
      abandoned?.addEventListener('abort', () => this.withdraw(waiter, abandoned.reason), { once: true });
      this.pending.push(waiter);
      // Rejects count too: they are written (events_rejected) in the same flush.
      this.pendingRows += segment.rowCount + segment.rejects.length + segment.orders.length + segment.refunds.length;
      this.oldestBusTimestamp = Math.min(this.oldestBusTimestamp, segment.oldestBusTimestamp);
      this.lastSeen.set(segmentKey(segment), this.now());
      this.timer ??= setTimeout(() => { this.timer = undefined; this.flush('age'); }, this.opts.maxAgeMs);
      const trigger = this.trigger();
      if (trigger) this.flush(trigger);
    });
  }

  private withdraw(waiter: Waiter, reason: unknown): void {
    const at = this.pending.indexOf(waiter);
    if (at < 0) return;
    this.pending.splice(at, 1);
    this.pendingRows -= waiter.segment.rowCount + waiter.segment.rejects.length + waiter.segment.orders.length + waiter.segment.refunds.length;
    waiter.reject(reason);
  }

  /** Stop waiting for size or age from now on (shutdown): flush what is here and every later add. */
  flushNow(): void {
    this.immediate = true;
    this.flush('stop');
  }

  /** Settles once the running writes (and any flush due after them) have finished. */
  async drained(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
  }

  get size(): number {
    return this.pendingRows;
  }

  private trigger(): FlushTrigger | undefined {
    if (this.immediate) return 'stop';
    if (this.pendingRows >= this.opts.maxRows) return 'size';
    const backlog = this.now() - this.oldestBusTimestamp >= this.opts.maxAgeMs;
    if ((backlog || this.pendingRows >= this.opts.minRowsWhenAllWaiting) && this.allActiveWaiting()) return 'all-waiting';
    return undefined;
  }

  private allActiveWaiting(): boolean {
    const waiting = new Set(this.pending.map((w) => segmentKey(w.segment)));
    const now = this.now();
    for (const [key, seen] of this.lastSeen) {
      if (now - seen > this.opts.activeWindowMs) {
        this.lastSeen.delete(key);
        continue;
      }
      if (!waiting.has(key)) return false;
    }
    return true;
  }

  private flush(trigger: FlushTrigger): void {
    if (this.writes.size >= Math.max(1, this.opts.concurrentWrites ?? 1)) {
      this.due ??= trigger;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.due = undefined;
    const waiters = this.pending;
    if (waiters.length === 0) return;
    this.pending = [];
    this.pendingRows = 0;
    this.oldestBusTimestamp = Infinity;
    const write: Promise<void> = (async () => {
      try {
        await this.opts.write(waiters.map((w) => w.segment), trigger);
        for (const w of waiters) w.resolve();
      } catch (err) {
        for (const w of waiters) w.reject(err);
      }
    })().finally(() => {
      this.writes.delete(write);
      const next = this.due ?? this.trigger();
      if (next) this.flush(next);
    });
    this.writes.add(write);
  }
}
