import t from 'tap';
import { cityHash128 } from '../src/http-bridge/cityhash.js';
import { nativeCompress } from '../src/http-bridge/native-compression.js';

/** Bytes of the pattern the reference values below were computed on. */
const pattern = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 131 + 7 + (i >> 3) * 17) & 0xff));

// From com.clickhouse.data.ClickHouseCityHash.cityHash128 (clickhouse-data 0.10.0, the Java
// clients' checksum of compress=1 frames) on pattern(n): [n, low, high]. Every length class of
// the algorithm: 0, 1-3, 4-8, 9-16, 17-127 and ≥ 128 with and without a tail.
const REFERENCE: [number, string, string][] = [
  [0, '3df09dfc64c09a2b', '3cb540c392e51e29'], [3, 'eb932eee3e24bb6b', 'ffec5144a8fd549d'],
  [8, 'ddce5210a6604339', '1db0cb571c6547ac'], [15, 'b94af232cc3192f0', '53dc70e4c4e2bd75'],
  [16, '84650eb1b0c3f5be', 'db7b17d7b2719195'], [17, 'b5be179d027f9db4', '2c40b1cbc8a6ac41'],
  [64, 'ba158a73b8319458', '543741375081d651'], [127, '15344985ad185c3f', 'aa7926403a4f479e'],
  [128, 'e48b1105181c47eb', '6c4f74c437da79d6'], [129, '30bd60711beeccd4', '8586f9a9088fae5f'],
  [255, '4e91e01e33e484c5', 'faacf11fde55731d'], [256, 'f680b4a3f3161513', '4191c70b9b0283fa'],
  [1000, '6dbd91b1e38ff849', '725b068b78703336'], [70000, 'bf9a04c658f7ad88', 'ed453afc8f499519'],
];

t.test('CityHash128 v1.0.2 matches the ClickHouse Java client', async (t) => {
  for (const [n, low, high] of REFERENCE) {
    const [l, h] = cityHash128(pattern(n));
    t.same([l.toString(16), h.toString(16)], [low, high], `${n} bytes`);
  }
});

/** A general LZ4 block decoder (literals and matches), so the test does not trust the writer's own shape. */
function lz4Decode(block: Buffer, size: number): Buffer {
  const out = Buffer.alloc(size);
  let i = 0;
  let o = 0;
  const length = (n: number) => {
    if (n !== 15) return n;
    for (let b = 255; b === 255; n += b) b = block[i++];
    return n;
  };
  while (i < block.length) {
    const token = block[i++];
    const lit = length(token >> 4);
    block.copy(out, o, i, i + lit);
    i += lit;
    o += lit;
    if (i >= block.length) break;
    const offset = block.readUInt16LE(i);
    i += 2;
    for (let m = length(token & 15) + 4; m > 0; m--, o++) out[o] = out[o - offset];
  }
  if (o !== size) throw new Error(`decoded ${o} bytes, frame says ${size}`);
  return out;
}

t.test('compress=1 frames: checksum, LZ4 method, sizes, 1 MiB per frame, the payload back', async (t) => {
  const payload = pattern(3 * 1048576 + 100);
  const framed = await nativeCompress(payload);
  const parts: Buffer[] = [];
  for (let at = 0; at < framed.length;) {
    const size = framed.readUInt32LE(at + 17);
    const body = framed.subarray(at + 16, at + 16 + size);
    const [low, high] = cityHash128(body);
    t.same([framed.readBigUInt64LE(at), framed.readBigUInt64LE(at + 8)], [low, high], `frame at ${at}: checksum`);
    t.equal(body[0], 0x82, 'LZ4');
    parts.push(lz4Decode(body.subarray(9), body.readUInt32LE(5)));
    at += 16 + size;
  }
  t.same(parts.map((p) => p.length), [1048576, 1048576, 1048576, 100], 'one frame per MiB');
  t.ok(Buffer.concat(parts).equals(payload), 'the payload back');
  t.equal((await nativeCompress(Buffer.alloc(0))).length, 0, 'no data, no frame');
  for (const n of [1, 14, 15, 16, 269, 270, 271]) {
    const framedSmall = await nativeCompress(pattern(n));
    t.ok(lz4Decode(framedSmall.subarray(25), n).equals(pattern(n)), `${n} bytes (literal length encoding edges)`);
  }
});
