import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Logger } from '@chatlytics/core';
import type { ConsumedMessage } from '../types.js';
import { BusLogCorruptError } from '../errors.js';
import type { Segment, SegmentedLog } from './log.js';
import { readRecords } from './segment.js';

export interface ReadLimits {
  maxRecords: number;
  maxBytes: number;
  /** Exclusive: never return a record at or past this offset (the end captured by the caller). */
  endOffset: number;
}

/**
 * Sequential reader of one stream from an offset. Keeps its segment open and its byte
 * position, so tailing costs one read per batch rather than a scan from the segment start.
 */
export class LogReader {
  private segment?: Segment;
  private fh?: FileHandle;
  private position = 0;

  constructor(private readonly log: SegmentedLog, public nextOffset: number, private readonly logger: Logger) {}

  /**
   * Up to the limits, across segment boundaries (a segment is a unit of retention, not of
   * delivery); an empty array only when nextOffset >= endOffset. Why cross them: a backlog batch
   * used to end at every 16 MiB segment (~25k events), so the consumer's inserts were half the
   * size its limits allow, and ClickHouse spent ~1 µs/event more merging twice as many parts.
   */
  async read(limits: ReadLimits): Promise<ConsumedMessage[]> {
    const out: ConsumedMessage[] = [];
    let bytes = 0;
    while (this.nextOffset < limits.endOffset && out.length < limits.maxRecords && bytes < limits.maxBytes) {
      if (!this.segment || !this.fh) await this.seek(this.nextOffset);
      const maxRecords = Math.min(limits.maxRecords - out.length, limits.endOffset - this.nextOffset);
      const r = await readRecords(this.fh!, this.position, this.segment!.size, { maxRecords, maxBytes: limits.maxBytes - bytes });
      if (r.stoppedAt) {
        throw new BusLogCorruptError(`embedded bus: bad record in ${this.segment!.path} at byte ${r.nextPosition}: ${
          r.stoppedAt.kind === 'corrupt' ? r.stoppedAt.reason : 'truncated'}`);
      }
      for (const rec of r.records) {
        rec.offsetNumber = this.nextOffset++;
        out.push(rec);
      }
      bytes += r.nextPosition - this.position;
      this.position = r.nextPosition;
      if (r.records.length === 0) await this.nextSegment();
      // A limit stopped the read inside this segment: the batch is full.
      else if (this.position < this.segment!.size) break;
    }
    return out;
  }

  private async nextSegment(): Promise<void> {
    const following = this.segment && this.log.segmentAfter(this.segment);
    if (!following) throw new BusLogCorruptError(`embedded bus: no segment holds offset ${this.nextOffset} in ${this.log.dir}`);
    if (following.base !== this.nextOffset) {
      throw new BusLogCorruptError(`embedded bus: ${this.segment!.path} ends at offset ${this.nextOffset} but the next segment starts at ${following.base}`);
    }
    if (!(await this.open(following))) await this.seek(this.log.startOffset);
  }

  /** Positions the reader at `offset`, skipping the records before it in its segment. */
  private async seek(offset: number): Promise<void> {
    if (offset < this.log.startOffset) {
      // Retention removed what this reader wanted (a replay slower than the clean-up).
      this.logger.warn({ dir: this.log.dir, wanted: offset, startOffset: this.log.startOffset }, 'embedded bus: records already deleted by retention; reading from the oldest retained');
      offset = this.log.startOffset;
    }
    const segment = this.log.segmentFor(offset);
    if (!segment) throw new BusLogCorruptError(`embedded bus: no segment holds offset ${offset} in ${this.log.dir}`);
    if (!(await this.open(segment))) return this.seek(this.log.startOffset);
    this.nextOffset = segment.base;
    while (this.nextOffset < offset) {
      const r = await readRecords(this.fh!, this.position, segment.size, { maxRecords: offset - this.nextOffset, maxBytes: 4 * 1024 * 1024 });
      if (r.stoppedAt || r.records.length === 0) throw new BusLogCorruptError(`embedded bus: offset ${offset} not found in ${segment.path}`);
      this.nextOffset += r.records.length;
      this.position = r.nextPosition;
    }
  }

  /** False when retention deleted the segment between lookup and open (the caller re-seeks). */
  private async open(segment: Segment): Promise<boolean> {
    await this.close();
    try {
      this.fh = await fs.open(segment.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !this.log.isRetained(segment)) return false;
      throw err;
    }
    this.segment = segment;
    this.position = 0;
    return true;
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = undefined;
    this.segment = undefined;
    await fh?.close();
  }
}
