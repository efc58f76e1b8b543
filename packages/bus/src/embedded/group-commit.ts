import type { BusMessage } from '../types.js';
import { BusUnavailableError } from '../errors.js';
import type { SegmentedLog } from './log.js';

export interface GroupCommitOptions {
  /**
   * How long an idle log waits for more publishes before writing (0 = until the current I/O
   * phase ends). While an fsync is in flight, arriving publishes queue anyway and go out
   * together right after it, so this only matters for the first publish of a burst.
   */
  lingerMs: number;
  /** Flush without waiting once this much is queued; also caps one write + fsync. */
  maxBatchBytes: number;
}

interface PendingAppend {
  messages: BusMessage[];
  bytes: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Record overhead (header, timestamp, key length) for sizing groups; exactness is not needed. */
const RECORD_OVERHEAD_BYTES = 20;

/**
 * Group commit: publishes that arrive close together are written with one write and made
 * durable with ONE fsync, and each publish resolves only after that fsync. Durability per
 * publish stays the contract while the fsync cost is shared by everyone waiting.
 */
export class GroupCommitter {
  private pending: PendingAppend[] = [];
  private pendingBytes = 0;
  private flushing = false;
  private timer?: { cancel(): void };
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly log: SegmentedLog,
    private readonly opts: GroupCommitOptions,
    private readonly onFlushed: (messageCount: number) => void,
  ) {}

  append(messages: BusMessage[]): Promise<void> {
    if (this.closed) return Promise.reject(new BusUnavailableError('embedded bus is closed'));
    if (this.log.failed) return Promise.reject(this.log.failed);
    if (messages.length === 0) return Promise.resolve();
    let bytes = 0;
    for (const m of messages) bytes += RECORD_OVERHEAD_BYTES + m.key.length * 3 + m.value.length;
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ messages, bytes, resolve, reject });
      this.pendingBytes += bytes;
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.flushing) return; // the running flush loop picks the new publishes up
    if (this.pendingBytes >= this.opts.maxBatchBytes) {
      this.timer?.cancel();
      void this.flush();
      return;
    }
    if (this.timer) return;
    if (this.opts.lingerMs > 0) {
      const t = setTimeout(() => void this.flush(), this.opts.lingerMs);
      this.timer = { cancel: () => clearTimeout(t) };
    } else {
      const t = setImmediate(() => void this.flush());
      this.timer = { cancel: () => clearImmediate(t) };
    }
  }

  private takeGroup(): PendingAppend[] {
    let bytes = 0;
    let n = 0;
    // At least one publish, however large; then as many as fit under maxBatchBytes.
    while (n < this.pending.length && (n === 0 || bytes + this.pending[n].bytes <= this.opts.maxBatchBytes)) {
      bytes += this.pending[n].bytes;
      n++;
    }
    this.pendingBytes -= bytes;
    return this.pending.splice(0, n);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const group = this.takeGroup();
        const messages = group.length === 1 ? group[0].messages : group.flatMap((p) => p.messages);
        try {
          await this.log.appendDurably(messages);
        } catch (err) {
          const reason = err instanceof BusUnavailableError ? err : new BusUnavailableError('embedded bus append failed', { cause: err });
          for (const p of group) p.reject(reason);
          continue;
        }
        this.onFlushed(messages.length);
        for (const p of group) p.resolve();
      }
    } finally {
      this.flushing = false;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** Refuses new publishes and waits until every queued one is durable (or rejected). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pending.length === 0 && !this.flushing) return;
    this.timer?.cancel();
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    if (!this.flushing) void this.flush();
    await idle;
  }
}
