import t from 'tap';
import fc from 'fast-check';
import { crc32 } from 'node:zlib';
import { decodeRecordAt, encodeRecord, encodeRecords, HEADER_BYTES } from '../src/embedded/record.js';

const records = fc.record({
  key: fc.string({ maxLength: 64 }),
  value: fc.uint8Array({ maxLength: 2048 }).map((a) => Buffer.from(a)),
  timestamp: fc.integer({ min: 0, max: 2 ** 47 }),
});

t.test('a record decodes to exactly what was encoded', async (t) => {
  fc.assert(fc.property(records, ({ key, value, timestamp }) => {
    const buf = encodeRecord(key, value, timestamp);
    const r = decodeRecordAt(buf, 0);
    return r.kind === 'record' && r.next === buf.length && r.record.key === key
      && r.record.timestamp === timestamp && r.record.value.equals(value);
  }));
  t.pass('property held');
});

t.test('any prefix of a record is incomplete, never a record', async (t) => {
  fc.assert(fc.property(records, fc.nat(), ({ key, value, timestamp }, cut) => {
    const buf = encodeRecord(key, value, timestamp);
    const r = decodeRecordAt(buf.subarray(0, cut % buf.length), 0);
    return r.kind === 'incomplete';
  }));
  t.pass('property held');
});

t.test('a damaged byte in the body is caught by the CRC', async (t) => {
  fc.assert(fc.property(records, fc.nat(), fc.integer({ min: 1, max: 255 }), ({ key, value, timestamp }, at, mask) => {
    const buf = encodeRecord(key, value, timestamp);
    const pos = HEADER_BYTES - 4 + (at % (buf.length - HEADER_BYTES + 4)); // the CRC field or any body byte
    buf[pos] ^= mask;
    return decodeRecordAt(buf, 0).kind === 'corrupt';
  }));
  t.pass('property held');
});

t.test('zeroes (blocks allocated but never written) are not a record', async (t) => {
  t.equal(decodeRecordAt(Buffer.alloc(64), 0).kind, 'corrupt');
});

t.test('an append encodes to exactly the concatenation of its records (the bytes on disk unchanged)', async (t) => {
  fc.assert(fc.property(fc.array(records.map(({ key, value }) => ({ key, value })), { maxLength: 20 }), fc.integer({ min: 0, max: 2 ** 47 }), (messages, timestamp) => {
    const legacy = (key: string, value: Buffer) => {
      // The original single-record encoder, kept here as the reference layout.
      const keyLength = Buffer.byteLength(key, 'utf8');
      const buf = Buffer.alloc(HEADER_BYTES + 12 + keyLength + value.length);
      buf.writeUInt32BE(12 + keyLength + value.length, 0);
      buf.writeBigInt64BE(BigInt(timestamp), 8);
      buf.writeUInt32BE(keyLength, 16);
      buf.write(key, 20, 'utf8');
      value.copy(buf, 20 + keyLength);
      buf.writeUInt32BE(crc32(buf.subarray(HEADER_BYTES)), 4);
      return buf;
    };
    const all = encodeRecords(messages, timestamp);
    if (!all.equals(Buffer.concat(messages.map((m) => legacy(m.key, m.value))))) return false;
    let pos = 0;
    for (const m of messages) {
      const r = decodeRecordAt(all, pos);
      if (r.kind !== 'record' || r.record.key !== m.key || !r.record.value.equals(m.value) || r.record.timestamp !== timestamp) return false;
      pos = r.next;
    }
    return pos === all.length;
  }));
  t.pass('property held');
});
