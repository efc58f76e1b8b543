import t from 'tap';
import fc from 'fast-check';
import { decodeRecordAt, encodeRecord, HEADER_BYTES } from '../src/embedded/record.js';

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
