/**
 * ClickHouse's own block compression of HTTP bodies (`compress=1`): the JDBC driver and other
 * Java clients ask for it by default. A response is a sequence of frames:
 *
 *   checksum (16 bytes: CityHash128 v1.0.2 of the rest, low then high 64 bits, little endian)
 *   method (1 byte: 0x82 = LZ4) | compressed size incl. these 9 bytes (u32 LE) | raw size (u32 LE)
 *   LZ4 block
 *
 * The LZ4 blocks written here are valid but literal-only (one sequence, no matches): the point
 * is speaking the framing clients require, not saving bytes; enable_http_compression does that.
 */
const LZ4_METHOD = 0x82;
const HEADER = 9;
/**
 * Smaller than ClickHouse's 1 MiB (any size is valid): the checksum is BigInt arithmetic, a few
 * MiB/s, so a frame is hashed in well under 50 ms and the event loop (the all-in-one's tracking
 * routes) gets a turn between frames.
 */
const FRAME_BYTES = 64 * 1024;

/** An empty payload stays empty, as ClickHouse writes no frame for no data. */
export async function nativeCompress(payload: Buffer): Promise<Buffer> {
  const frames: Buffer[] = [];
  for (let at = 0; at < payload.length; at += FRAME_BYTES) {
    frames.push(frame(payload.subarray(at, at + FRAME_BYTES)));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return Buffer.concat(frames);
}

function frame(raw: Buffer): Buffer {
  const block = literalBlock(raw);
  const out = Buffer.alloc(16 + HEADER + block.length);
  out[16] = LZ4_METHOD;
  out.writeUInt32LE(HEADER + block.length, 17);
  out.writeUInt32LE(raw.length, 21);
  block.copy(out, 16 + HEADER);
  const [low, high] = cityHash128(out.subarray(16));
  out.writeBigUInt64LE(low, 0);
  out.writeBigUInt64LE(high, 8);
  return out;
}

/** An LZ4 block holding `raw` as one run of literals: token, length bytes (15 + 255… + rest), bytes. */
function literalBlock(raw: Buffer): Buffer {
  const n = raw.length;
  const extra = n >= 15 ? Math.floor((n - 15) / 255) + 1 : 0;
  const out = Buffer.alloc(1 + extra + n);
  out[0] = Math.min(n, 15) << 4;
  let p = 1;
  if (n >= 15) {
    let rest = n - 15;
    for (; rest >= 255; rest -= 255) out[p++] = 255;
    out[p++] = rest;
  }
  raw.copy(out, p);
  return out;
}

// CityHash v1.0.2, the version ClickHouse checksums with (later CityHash versions differ).
const M = (1n << 64n) - 1n;
const k0 = 0xc3a5c85c97cb3127n;
const k1 = 0xb492b66fbe98f273n;
const k2 = 0x9ae16a3b2f90404fn;
const k3 = 0xc949d7c7509e6557n;
const kMul = 0x9ddfea08eb382d69n;

const mul = (a: bigint, b: bigint) => (a * b) & M;
const add = (...xs: bigint[]) => xs.reduce((s, x) => s + x, 0n) & M;
const rot = (v: bigint, s: number) => (s === 0 ? v : ((v >> BigInt(s)) | (v << BigInt(64 - s))) & M);
const shiftMix = (v: bigint) => v ^ (v >> 47n);

function hashLen16(u: bigint, v: bigint): bigint {
  let a = mul(u ^ v, kMul);
  a ^= a >> 47n;
  let b = mul(v ^ a, kMul);
  b ^= b >> 47n;
  return mul(b, kMul);
}

function hashLen0to16(s: Buffer, off: number, len: number): bigint {
  if (len > 8) {
    const a = s.readBigUInt64LE(off);
    const b = s.readBigUInt64LE(off + len - 8);
    // RotateByAtLeast1: len is 9..16 here, never 0.
    return hashLen16(a, rot(add(b, BigInt(len)), len)) ^ b;
  }
  if (len >= 4) {
    const a = BigInt(s.readUInt32LE(off));
    return hashLen16(add(BigInt(len), (a << 3n) & M), BigInt(s.readUInt32LE(off + len - 4)));
  }
  if (len > 0) {
    const y = BigInt(s[off] + (s[off + (len >> 1)] << 8));
    const z = BigInt(len + (s[off + len - 1] << 2));
    return mul(shiftMix(mul(y, k2) ^ mul(z, k3)), k2);
  }
  return k2;
}

type Pair = [bigint, bigint];

function weak32(s: Buffer, off: number, a: bigint, b: bigint): Pair {
  const w = s.readBigUInt64LE(off);
  const x = s.readBigUInt64LE(off + 8);
  const y = s.readBigUInt64LE(off + 16);
  const z = s.readBigUInt64LE(off + 24);
  a = add(a, w);
  b = rot(add(b, a, z), 21);
  const c = a;
  a = add(a, x, y);
  b = add(b, rot(a, 44));
  return [add(a, z), add(b, c)];
}

function cityMurmur(s: Buffer, off: number, len: number, seed: Pair): Pair {
  let [a, b] = seed;
  let c: bigint;
  let d: bigint;
  let l = len - 16;
  if (l <= 0) {
    a = mul(shiftMix(mul(a, k1)), k1);
    c = add(mul(b, k1), hashLen0to16(s, off, len));
    d = shiftMix(add(a, len >= 8 ? s.readBigUInt64LE(off) : c));
  } else {
    c = hashLen16(add(s.readBigUInt64LE(off + len - 8), k1), a);
    d = hashLen16(add(b, BigInt(len)), add(c, s.readBigUInt64LE(off + len - 16)));
    a = add(a, d);
    do {
      a ^= mul(shiftMix(mul(s.readBigUInt64LE(off), k1)), k1);
      a = mul(a, k1);
      b ^= a;
      c ^= mul(shiftMix(mul(s.readBigUInt64LE(off + 8), k1)), k1);
      c = mul(c, k1);
      d ^= c;
      off += 16;
      l -= 16;
    } while (l > 0);
  }
  a = hashLen16(a, c);
  b = hashLen16(d, b);
  return [a ^ b, hashLen16(b, a)];
}

function cityHash128WithSeed(s: Buffer, off: number, len: number, seed: Pair): Pair {
  if (len < 128) return cityMurmur(s, off, len, seed);
  let [x, y] = seed;
  let z = mul(BigInt(len), k1);
  const f = (at: number) => s.readBigUInt64LE(off + at);
  let v: Pair = [0n, 0n];
  let w: Pair = [0n, 0n];
  v[0] = add(mul(rot(y ^ k1, 49), k1), f(0));
  v[1] = add(mul(rot(v[0], 42), k1), f(8));
  w[0] = add(mul(rot(add(y, z), 35), k1), x);
  w[1] = mul(rot(add(x, f(88)), 53), k1);
  const round = () => {
    x = mul(rot(add(x, y, v[0], f(16)), 37), k1);
    y = mul(rot(add(y, v[1], f(48)), 42), k1);
    x ^= w[1];
    y ^= v[0];
    z = rot(z ^ w[0], 33);
    v = weak32(s, off, mul(v[1], k1), add(x, w[0]));
    w = weak32(s, off + 32, add(z, w[1]), y);
    [z, x] = [x, z];
    off += 64;
  };
  do {
    round();
    round();
    len -= 128;
  } while (len >= 128);
  y = add(y, mul(rot(w[0], 37), k0), z);
  x = add(x, mul(rot(add(v[0], z), 49), k0));
  for (let done = 0; done < len;) {
    done += 32;
    y = add(mul(rot((y - x) & M, 42), k0), v[1]);
    w[0] = add(w[0], f(len - done + 16));
    x = add(mul(rot(x, 49), k0), w[0]);
    w[0] = add(w[0], v[0]);
    v = weak32(s, off + len - done, v[0], v[1]);
  }
  x = hashLen16(x, v[0]);
  y = hashLen16(y, w[0]);
  return [add(hashLen16(add(x, v[1]), w[1]), y), hashLen16(add(x, w[1]), add(y, v[1]))];
}

/** CityHash128 v1.0.2 of `s`: [low 64 bits, high 64 bits]. */
export function cityHash128(s: Buffer): Pair {
  const len = s.length;
  if (len >= 16) return cityHash128WithSeed(s, 16, len - 16, [s.readBigUInt64LE(0) ^ k3, s.readBigUInt64LE(8)]);
  if (len >= 8) return cityHash128WithSeed(s, 0, 0, [s.readBigUInt64LE(0) ^ mul(BigInt(len), k0), s.readBigUInt64LE(len - 8) ^ k1]);
  return cityHash128WithSeed(s, 0, len, [k0, k1]);
}
