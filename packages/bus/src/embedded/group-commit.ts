import type { BusMessage } from '../types.js';
import { BusUnavailableError } from '../errors.js';
import type { SegmentedLog } from './log.js';

export interface GroupCommitOptions {
  /** Caps one write + fsync in bytes (a single larger publish still goes alone). */
  maxBatchBytes: number;
  /** Caps one write + fsync in messages. */
  maxBatchMessages: number;
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
 * Group commit without a timer: an idle log writes a publish at once; while that write +
 * fsync is in flight, arriving publishes gather, and when it ends everything gathered goes
 * out in the next write with ONE fsync (up to the byte and message caps). Each publish
 * resolves only after its fsync, so durability per publish stays the contract while latency
 * follows the disk and the fsync cost is shared by everyone waiting.
 */
export class GroupCommitter {
  private pending: PendingAppend[] = [];
  private flushing = false;
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
      // A running flush loop picks the new publishes up after its current fsync.
      if (!this.flushing) void this.flush();
    });
  }

  private takeGroup(): PendingAppend[] {
    let bytes = 0;
    let messages = 0;
    let n = 0;
    // At least one publish, however large; then as many as fit under both caps.
    while (n < this.pending.length && (n === 0 || (bytes + this.pending[n].bytes <= this.opts.maxBatchBytes
      && messages + this.pending[n].messages.length <= this.opts.maxBatchMessages))) {
      bytes += this.pending[n].bytes;
      messages += this.pending[n].messages.length;
      n++;
    }
    return this.pending.splice(0, n);
  }

  private async flush(): Promise<void> {
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
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    if (!this.flushing) void this.flush();
    await idle;
  }
}
