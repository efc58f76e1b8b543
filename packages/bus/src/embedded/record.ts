import { crc32 } from 'node:zlib';
import type { ConsumedMessage } from '../types.js';

/**
 * On-disk framing of one record:
 *
 *   bodyLength u32 BE | crc32(body) u32 BE | body
 *   body = timestamp i64 BE (ms) | keyLength u32 BE | key (utf8) | value
 *
 * The length comes first so a reader can skip without parsing; the CRC covers the whole body
 * so a torn write (a crash in the middle of write(2), or a sector never written before power
 * loss) is detected instead of being read back as a short or garbled event. Offsets are not
 * stored: a record's offset is its segment's base offset (the file name) plus its index.
 */
export const HEADER_BYTES = 8;
const BODY_FIXED_BYTES = 12;
/** Anything longer is a garbage length field, not a record: ingest caps an event far below this. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * A record where it sits in the chunk it was read into, handed to the consumer as the
 * message itself (the reader stamps its log offset). Key, value and offset are made only when
 * asked for. Why: a backlog batch is up to 100k messages kept alive until ClickHouse acknowledged
 * them (the batch is redelivered as it is on failure); as plain objects each message was a
 * key string, an offset string and a Buffer view besides itself, and V8's young-generation
 * collector copied all of them twice before promoting them (bench:pipeline: the collector's
 * threads were the second-largest CPU user). This is one object per message; the value view
 * the consumer asks for once dies young.
 */
export class RecordView implements ConsumedMessage {
  readonly partition = 0;
  /** The log offset, set by the reader (-1 for records read without one, e.g. a scan). */
  offsetNumber = -1;

  constructor(
    private readonly chunk: Buffer,
    private readonly keyStart: number,
    private readonly valueStart: number,
    private readonly end: number,
    readonly timestamp: number,
  ) {}

  get key(): string {
    return this.chunk.toString('utf8', this.keyStart, this.valueStart);
  }

  get value(): Buffer {
    return this.chunk.subarray(this.valueStart, this.end);
  }

  get offset(): string {
    return String(this.offsetNumber);
  }
}

export type DecodeResult =
  | { kind: 'record'; record: RecordView; next: number }
  /** The buffer ends inside this record; `recordBytes` is its full size when the header was readable. */
  | { kind: 'incomplete'; recordBytes?: number }
  | { kind: 'corrupt'; reason: string };

/** Writes one record at `pos` of `buf` (which has room for it); returns the position after it. */
function writeRecord(buf: Buffer, pos: number, key: string, keyBytes: number, value: Buffer, timestamp: number): number {
  const bodyStart = pos + HEADER_BYTES;
  const bodyLength = BODY_FIXED_BYTES + keyBytes + value.length;
  buf.writeUInt32BE(bodyLength, pos);
  // Two 32-bit halves (the bytes writeBigInt64BE writes for a non-negative time): no BigInt per record.
  buf.writeUInt32BE(Math.floor(timestamp / 0x1_0000_0000), bodyStart);
  buf.writeUInt32BE(timestamp >>> 0, bodyStart + 4);
  buf.writeUInt32BE(keyBytes, bodyStart + 8);
  buf.write(key, bodyStart + BODY_FIXED_BYTES, keyBytes, 'utf8');
  value.copy(buf, bodyStart + BODY_FIXED_BYTES + keyBytes);
  const end = bodyStart + bodyLength;
  buf.writeUInt32BE(crc32(buf.subarray(bodyStart, end)), pos + 4);
  return end;
}

/** One record; `timestamp` is non-negative milliseconds. */
export function encodeRecord(key: string, value: Buffer, timestamp: number): Buffer {
  return encodeRecords([{ key, value }], timestamp);
}

/**
 * Every record of one append, written straight into one buffer: the same bytes as
 * concatenating encodeRecord's, without a buffer per record and the copy into the whole
 * (the group commit writes hundreds of records per fsync under load).
 */
export function encodeRecords(messages: readonly { key: string; value: Buffer }[], timestamp: number): Buffer {
  const keyBytes = new Array<number>(messages.length);
  let total = 0;
  for (let i = 0; i < messages.length; i++) {
    keyBytes[i] = Buffer.byteLength(messages[i].key, 'utf8');
    total += HEADER_BYTES + BODY_FIXED_BYTES + keyBytes[i] + messages[i].value.length;
  }
  const buf = Buffer.allocUnsafe(total);
  let pos = 0;
  for (let i = 0; i < messages.length; i++) pos = writeRecord(buf, pos, messages[i].key, keyBytes[i], messages[i].value, timestamp);
  return buf;
}

export function decodeRecordAt(buf: Buffer, pos: number): DecodeResult {
  if (buf.length - pos < HEADER_BYTES) return { kind: 'incomplete' };
  const bodyLength = buf.readUInt32BE(pos);
  if (bodyLength < BODY_FIXED_BYTES || bodyLength > MAX_BODY_BYTES) {
    return { kind: 'corrupt', reason: `implausible record length ${bodyLength}` };
  }
  const end = pos + HEADER_BYTES + bodyLength;
  if (buf.length < end) return { kind: 'incomplete', recordBytes: HEADER_BYTES + bodyLength };
  const bodyStart = pos + HEADER_BYTES;
  if (crc32(buf.subarray(bodyStart, end)) !== buf.readUInt32BE(pos + 4)) return { kind: 'corrupt', reason: 'CRC mismatch' };
  const keyBytes = buf.readUInt32BE(bodyStart + 8);
  if (keyBytes > bodyLength - BODY_FIXED_BYTES) return { kind: 'corrupt', reason: 'key longer than record' };
  // Two 32-bit halves, not readBigInt64BE: no BigInt per record (ms timestamps fit 53 bits).
  const timestamp = buf.readInt32BE(bodyStart) * 0x1_0000_0000 + buf.readUInt32BE(bodyStart + 4);
  const keyStart = bodyStart + BODY_FIXED_BYTES;
  return { kind: 'record', record: new RecordView(buf, keyStart, keyStart + keyBytes, end, timestamp), next: end };
}
