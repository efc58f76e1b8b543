import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@chatlytics/core';
import type { BusMessage } from '../types.js';
import { BusUnavailableError } from '../errors.js';
import { encodeRecords } from './record.js';
import { firstTimestamp, listSegmentBases, scanSegment, segmentFileName } from './segment.js';
import { fsyncDir, writeFully } from './fsutil.js';

export interface Segment {
  base: number;
  path: string;
  /** Durable bytes: the active segment's size only grows after its fsync returned. */
  size: number;
  /** When the segment stopped receiving records (its mtime for segments found on open). */
  sealedAtMs?: number;
  /** Cached timestamp of the first record; null for an empty segment. */
  firstTimestamp?: number | null;
}

export interface Retention {
  /** A fully consumed segment is kept at least this long after it was sealed (replay --from finds it). */
  maxAgeMs: number;
  /** ... unless the stream holds more than this many bytes: then fully consumed segments go, oldest first. */
  maxBytes: number;
}

export interface SegmentedLogOptions {
  dir: string;
  /** Roll to a new segment once the active one reaches this size; also the unit of clean-up. */
  segmentBytes: number;
  log: Logger;
}

/**
 * One stream of the embedded bus: an append-only sequence of segment files. Only durable
 * records are visible: endOffset and the active segment's size advance after fsync, so a
 * reader never hands out a record that a crash could still take back.
 */
export class SegmentedLog {
  /** fsyncs of segment data (group commit makes this far smaller than the number of publishes). */
  fsyncs = 0;
  private failure?: BusUnavailableError;
  private closed = false;
  private readonly waiters = new Set<() => void>();
  private cleaning = false;

  private constructor(
    private readonly opts: SegmentedLogOptions,
    private readonly segments: Segment[],
    private active: FileHandle,
    private next: number,
    private lastTimestamp: number,
  ) {}

  static async open(opts: SegmentedLogOptions): Promise<SegmentedLog> {
    await fs.mkdir(opts.dir, { recursive: true });
    let bases = await listSegmentBases(opts.dir);
    if (bases.length === 0) {
      await (await fs.open(path.join(opts.dir, segmentFileName(0)), 'wx')).close();
      await fsyncDir(opts.dir);
      bases = [0];
    }
    const segments: Segment[] = [];
    for (const base of bases) {
      const file = path.join(opts.dir, segmentFileName(base));
      const st = await fs.stat(file);
      segments.push({ base, path: file, size: st.size, sealedAtMs: st.mtimeMs });
    }
    // Only the last segment can end in a torn write: a segment is sealed (rolled) only after
    // everything in it was fsync'd, so the older ones are trusted as they are.
    const last = segments[segments.length - 1];
    last.sealedAtMs = undefined;
    const fh = await fs.open(last.path, 'r+');
    const scan = await scanSegment(fh, last.size);
    if (scan.validBytes < last.size) {
      opts.log.warn({ segment: last.path, validBytes: scan.validBytes, fileBytes: last.size, reason: scan.stoppedAt },
        'embedded bus: truncating torn tail left by a crash (those records were never acknowledged)');
      await fh.truncate(scan.validBytes);
      await fh.datasync();
      last.size = scan.validBytes;
    }
    last.firstTimestamp = scan.firstTimestamp ?? null;
    return new SegmentedLog(opts, segments, fh, last.base + scan.records, scan.lastTimestamp ?? 0);
  }

  get dir(): string { return this.opts.dir; }
  /** Offset of the oldest retained record. */
  get startOffset(): number { return this.segments[0].base; }
  /** Offset the next record will get = number of records ever appended. */
  get endOffset(): number { return this.next; }
  get failed(): BusUnavailableError | undefined { return this.failure; }

  /** The segment holding `offset` (or the one it would be appended to). */
  segmentFor(offset: number): Segment | undefined {
    for (let i = this.segments.length - 1; i >= 0; i--) if (this.segments[i].base <= offset) return this.segments[i];
    return undefined;
  }

  segmentAfter(segment: Segment): Segment | undefined {
    return this.segments.find((s) => s.base > segment.base);
  }

  isRetained(segment: Segment): boolean {
    return this.segments.includes(segment);
  }

  /** Appends and fsyncs; resolves with the first record's offset. Callers serialise appends (GroupCommitter). */
  async appendDurably(messages: BusMessage[]): Promise<number> {
    if (this.failure) throw this.failure;
    if (this.closed) throw new BusUnavailableError('embedded bus is closed');
    // Non-decreasing timestamps let offsetForTime pick a starting segment by first timestamps alone.
    const timestamp = Math.max(Date.now(), this.lastTimestamp);
    const data = encodeRecords(messages, timestamp);
    let segment = this.segments[this.segments.length - 1];
    try {
      if (segment.size >= this.opts.segmentBytes) segment = await this.roll();
      await writeFully(this.active, data, segment.size);
      await this.active.datasync();
    } catch (err) {
      // After a failed write or fsync the page cache no longer tells what is on disk, so
      // retrying the fsync could "succeed" over lost data. Drop the partial append and
      // refuse writes until the log is reopened (recovery re-derives the truth from disk).
      await this.active.truncate(segment.size).catch(() => undefined);
      this.failure = new BusUnavailableError(`embedded bus log ${this.opts.dir} failed to write; restart required`, { cause: err });
      this.opts.log.error({ err, dir: this.opts.dir }, 'embedded bus: append failed; log refuses writes until reopened');
      throw this.failure;
    }
    this.fsyncs++;
    const base = this.next;
    segment.size += data.length;
    if (segment.firstTimestamp == null) segment.firstTimestamp = timestamp;
    this.next += messages.length;
    this.lastTimestamp = timestamp;
    this.wake();
    return base;
  }

  private async roll(): Promise<Segment> {
    const previous = this.segments[this.segments.length - 1];
    const file = path.join(this.opts.dir, segmentFileName(this.next));
    const fh = await fs.open(file, 'wx+');
    // The new file's directory entry must be durable before any acknowledged record lives in it.
    await fsyncDir(this.opts.dir);
    await this.active.close();
    this.active = fh;
    previous.sealedAtMs = Date.now();
    const segment: Segment = { base: this.next, path: file, size: 0, firstTimestamp: null };
    this.segments.push(segment);
    return segment;
  }

  /** Resolves once a record at or after `offset` is durable, or when aborted / closed. */
  waitForAppend(offset: number, signal: AbortSignal): Promise<void> {
    if (this.next > offset || this.closed || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => { this.waiters.delete(done); signal.removeEventListener('abort', done); resolve(); };
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /**
   * Where a replay from `fromTime` starts: the newest segment whose first record is older than
   * `fromTime` (later records of it may be newer). The reader still filters record by record.
   */
  async offsetForTime(fromTime: number): Promise<number> {
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const segment = this.segments[i];
      if (segment.firstTimestamp === undefined) {
        const fh = await fs.open(segment.path, 'r').catch(() => undefined);
        if (!fh) continue; // removed by clean-up meanwhile
        try { segment.firstTimestamp = (await firstTimestamp(fh, segment.size)) ?? null; } finally { await fh.close(); }
      }
      if (segment.firstTimestamp !== null && segment.firstTimestamp < fromTime) return segment.base;
    }
    return this.startOffset;
  }

  /**
   * Deletes whole sealed segments that lie entirely below `consumedOffset` and are outside the
   * retention (older than maxAgeMs, or the stream is over maxBytes). Never unconsumed data:
   * a stuck consumer makes the disk fill up and publishes fail, rather than events vanish.
   */
  async deleteConsumedSegments(consumedOffset: number, retention: Retention): Promise<number> {
    if (this.cleaning || this.closed) return 0;
    this.cleaning = true;
    try {
      let retainedBytes = this.segments.reduce((sum, s) => sum + s.size, 0);
      let deleted = 0;
      // Oldest first, and never the active (last) segment.
      while (deleted < this.segments.length - 1) {
        const segment = this.segments[deleted];
        const following = this.segments[deleted + 1];
        if (following.base > consumedOffset) break;
        const old = Date.now() - (segment.sealedAtMs ?? Date.now()) >= retention.maxAgeMs;
        if (!old && retainedBytes <= retention.maxBytes) break;
        await fs.rm(segment.path, { force: true });
        retainedBytes -= segment.size;
        deleted++;
      }
      if (deleted > 0) {
        this.segments.splice(0, deleted);
        this.opts.log.debug({ dir: this.opts.dir, deleted, startOffset: this.startOffset }, 'embedded bus: deleted consumed segments');
      }
      return deleted;
    } finally {
      this.cleaning = false;
    }
  }

  segmentCount(): number { return this.segments.length; }

  /** Callers first drain their appends (GroupCommitter.close). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake();
    await this.active.close();
  }
}
