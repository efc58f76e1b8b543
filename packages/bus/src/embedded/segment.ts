import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { decodeRecordAt, type RecordView } from './record.js';

/**
 * A stream is a directory of segment files named by the offset of their first record,
 * zero-padded to 20 digits so that name order is offset order (2^64 has 20 digits).
 */
const SEGMENT_NAME = /^(\d{20})\.log$/;

export function segmentFileName(baseOffset: number): string {
  return `${String(baseOffset).padStart(20, '0')}.log`;
}

export async function listSegmentBases(dir: string): Promise<number[]> {
  const names = await fs.readdir(dir);
  return names.flatMap((n) => {
    const m = SEGMENT_NAME.exec(n);
    return m ? [Number(m[1])] : [];
  }).sort((a, b) => a - b);
}

export interface ReadResult {
  records: RecordView[];
  /** Byte position just after the last returned record. */
  nextPosition: number;
  /** Set when reading stopped at a bad record; `incomplete` only when the record runs past `endPosition`. */
  stoppedAt?: { kind: 'corrupt'; reason: string } | { kind: 'incomplete' };
}

/** Small reads cost a syscall each; 64 KiB amortises that without holding much memory per reader. */
const MIN_CHUNK_BYTES = 64 * 1024;

async function readExactly(fh: FileHandle, length: number, position: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await fh.read(buf, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buf.subarray(0, filled);
}

/**
 * Reads whole records from `position`, never past `endPosition` (the durable size of the
 * segment: bytes beyond it may be an append still being fsync'd). Returns at least one record
 * when one fits before `endPosition`, even if it is bigger than `maxBytes`.
 */
export async function readRecords(
  fh: FileHandle, position: number, endPosition: number, limits: { maxRecords: number; maxBytes: number },
): Promise<ReadResult> {
  const available = endPosition - position;
  if (available <= 0) return { records: [], nextPosition: position };
  let buf = await readExactly(fh, Math.min(available, Math.max(limits.maxBytes, MIN_CHUNK_BYTES)), position);
  const records: RecordView[] = [];
  let pos = 0;
  let bytes = 0;
  while (records.length < limits.maxRecords && bytes < limits.maxBytes) {
    const r = decodeRecordAt(buf, pos);
    if (r.kind === 'record') {
      records.push(r.record);
      bytes += r.next - pos;
      pos = r.next;
      continue;
    }
    if (r.kind === 'corrupt') return { records, nextPosition: position + pos, stoppedAt: r };
    const reachedEnd = position + buf.length >= endPosition;
    if (!reachedEnd && records.length === 0 && r.recordBytes !== undefined && position + r.recordBytes <= endPosition) {
      // One record bigger than the chunk: read exactly it, then decode again.
      buf = await readExactly(fh, r.recordBytes, position);
      continue;
    }
    return { records, nextPosition: position + pos, stoppedAt: reachedEnd && pos < buf.length ? { kind: 'incomplete' } : undefined };
  }
  return { records, nextPosition: position + pos };
}

export interface ScanResult {
  /** Bytes at the start of the file that hold whole, CRC-valid records. */
  validBytes: number;
  records: number;
  firstTimestamp?: number;
  lastTimestamp?: number;
  stoppedAt?: ReadResult['stoppedAt'];
}

/** Walks a whole segment (recovery of the active segment on open). */
export async function scanSegment(fh: FileHandle, size: number): Promise<ScanResult> {
  const result: ScanResult = { validBytes: 0, records: 0 };
  while (result.validBytes < size) {
    const r = await readRecords(fh, result.validBytes, size, { maxRecords: Infinity, maxBytes: 1024 * 1024 });
    if (r.records.length > 0) {
      result.firstTimestamp ??= r.records[0].timestamp;
      result.lastTimestamp = r.records[r.records.length - 1].timestamp;
    }
    result.records += r.records.length;
    result.validBytes = r.nextPosition;
    if (r.stoppedAt) return { ...result, stoppedAt: r.stoppedAt };
    if (r.records.length === 0) break;
  }
  return result;
}

/** Timestamp of the first record, or undefined for an empty segment. */
export async function firstTimestamp(fh: FileHandle, size: number): Promise<number | undefined> {
  const r = await readRecords(fh, 0, size, { maxRecords: 1, maxBytes: 1 });
  return r.records[0]?.timestamp;
}
