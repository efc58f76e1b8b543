import { crc32 } from 'node:zlib';

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

export interface DecodedRecord {
  timestamp: number;
  key: string;
  value: Buffer;
}

export type DecodeResult =
  | { kind: 'record'; record: DecodedRecord; next: number }
  /** The buffer ends inside this record; `recordBytes` is its full size when the header was readable. */
  | { kind: 'incomplete'; recordBytes?: number }
  | { kind: 'corrupt'; reason: string };

export function encodeRecord(key: string, value: Buffer, timestamp: number): Buffer {
  const keyBytes = Buffer.byteLength(key, 'utf8');
  const bodyLength = BODY_FIXED_BYTES + keyBytes + value.length;
  const buf = Buffer.allocUnsafe(HEADER_BYTES + bodyLength);
  buf.writeUInt32BE(bodyLength, 0);
  buf.writeBigInt64BE(BigInt(timestamp), 8);
  buf.writeUInt32BE(keyBytes, 16);
  buf.write(key, 20, 'utf8');
  value.copy(buf, 20 + keyBytes);
  buf.writeUInt32BE(crc32(buf.subarray(HEADER_BYTES)), 4);
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
  const body = buf.subarray(pos + HEADER_BYTES, end);
  if (crc32(body) !== buf.readUInt32BE(pos + 4)) return { kind: 'corrupt', reason: 'CRC mismatch' };
  const keyBytes = body.readUInt32BE(8);
  if (keyBytes > bodyLength - BODY_FIXED_BYTES) return { kind: 'corrupt', reason: 'key longer than record' };
  return {
    kind: 'record',
    record: {
      // Two 32-bit halves, not readBigInt64BE: no BigInt per record (ms timestamps fit 53 bits).
      timestamp: body.readInt32BE(0) * 0x1_0000_0000 + body.readUInt32BE(4),
      key: body.toString('utf8', BODY_FIXED_BYTES, BODY_FIXED_BYTES + keyBytes),
      value: body.subarray(BODY_FIXED_BYTES + keyBytes),
    },
    next: end,
  };
}
