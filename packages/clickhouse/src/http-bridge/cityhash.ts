/**
 * CityHash128 v1.0.2, the version ClickHouse checksums its compressed frames with (later
 * CityHash versions give other values). 64-bit words are pairs of unsigned 32-bit halves:
 * BigInt arithmetic ran at ~3 MiB/s, which made every compress=1 response CPU-bound.
 */
interface U64 { h: number; l: number }

const u = (h: number, l: number): U64 => ({ h: h >>> 0, l: l >>> 0 });
const big = (hex: string): U64 => u(parseInt(hex.slice(0, 8), 16), parseInt(hex.slice(8), 16));
const k0 = big('c3a5c85c97cb3127');
const k1 = big('b492b66fbe98f273');
const k2 = big('9ae16a3b2f90404f');
const k3 = big('c949d7c7509e6557');
const kMul = big('9ddfea08eb382d69');

function add(a: U64, b: U64): U64 {
  const l = a.l + b.l;
  return u(a.h + b.h + (l > 0xffffffff ? 1 : 0), l);
}
function sub(a: U64, b: U64): U64 {
  return u(a.h - b.h - (a.l < b.l ? 1 : 0), a.l - b.l);
}
const xor = (a: U64, b: U64): U64 => u(a.h ^ b.h, a.l ^ b.l);
const num = (n: number): U64 => u(Math.floor(n / 0x100000000), n);

/** The low 64 bits of a × b, in 16-bit limbs so that every partial product stays exact in a double. */
function mul(a: U64, b: U64): U64 {
  const a48 = a.h >>> 16, a32 = a.h & 0xffff, a16 = a.l >>> 16, a00 = a.l & 0xffff;
  const b48 = b.h >>> 16, b32 = b.h & 0xffff, b16 = b.l >>> 16, b00 = b.l & 0xffff;
  // Column sums (each product < 2^32, a column < 2^35: still exact), then each column's carry.
  const c00 = a00 * b00;
  const c16 = a16 * b00 + a00 * b16 + Math.floor(c00 / 0x10000);
  const c32 = a32 * b00 + a16 * b16 + a00 * b32 + Math.floor(c16 / 0x10000);
  const c48 = a48 * b00 + a32 * b16 + a16 * b32 + a00 * b48 + Math.floor(c32 / 0x10000);
  return u(((c48 % 0x10000) << 16) | (c32 % 0x10000), ((c16 % 0x10000) << 16) | (c00 % 0x10000));
}

function shr(a: U64, n: number): U64 {
  if (n === 0) return a;
  if (n >= 32) return u(0, a.h >>> (n - 32));
  return u(a.h >>> n, (a.l >>> n) | (a.h << (32 - n)));
}
function shl(a: U64, n: number): U64 {
  if (n === 0) return a;
  if (n >= 32) return u(a.l << (n - 32), 0);
  return u((a.h << n) | (a.l >>> (32 - n)), a.l << n);
}
function rot(v: U64, s: number): U64 {
  if (s === 0) return v;
  const r = shr(v, s), l = shl(v, 64 - s);
  return u(r.h | l.h, r.l | l.l);
}
const shiftMix = (v: U64): U64 => xor(v, shr(v, 47));
const fetch64 = (s: Buffer, at: number): U64 => u(s.readUInt32LE(at + 4), s.readUInt32LE(at));
const fetch32 = (s: Buffer, at: number): U64 => u(0, s.readUInt32LE(at));

function hashLen16(x: U64, y: U64): U64 {
  let a = mul(xor(x, y), kMul);
  a = xor(a, shr(a, 47));
  let b = mul(xor(y, a), kMul);
  b = xor(b, shr(b, 47));
  return mul(b, kMul);
}

function hashLen0to16(s: Buffer, off: number, len: number): U64 {
  if (len > 8) {
    const a = fetch64(s, off);
    const b = fetch64(s, off + len - 8);
    return xor(hashLen16(a, rot(add(b, num(len)), len)), b);
  }
  if (len >= 4) return hashLen16(add(num(len), shl(fetch32(s, off), 3)), fetch32(s, off + len - 4));
  if (len > 0) {
    const y = num(s[off] + (s[off + (len >> 1)] << 8));
    const z = num(len + (s[off + len - 1] << 2));
    return mul(shiftMix(xor(mul(y, k2), mul(z, k3))), k2);
  }
  return k2;
}

type Pair = [U64, U64];

function weak32(s: Buffer, off: number, a: U64, b: U64): Pair {
  const w = fetch64(s, off), x = fetch64(s, off + 8), y = fetch64(s, off + 16), z = fetch64(s, off + 24);
  a = add(a, w);
  b = rot(add(add(b, a), z), 21);
  const c = a;
  a = add(add(a, x), y);
  b = add(b, rot(a, 44));
  return [add(a, z), add(b, c)];
}

function cityMurmur(s: Buffer, off: number, len: number, [seedLow, seedHigh]: Pair): Pair {
  let a = seedLow, b = seedHigh, c: U64, d: U64;
  let l = len - 16;
  if (l <= 0) {
    a = mul(shiftMix(mul(a, k1)), k1);
    c = add(mul(b, k1), hashLen0to16(s, off, len));
    d = shiftMix(add(a, len >= 8 ? fetch64(s, off) : c));
  } else {
    c = hashLen16(add(fetch64(s, off + len - 8), k1), a);
    d = hashLen16(add(b, num(len)), add(c, fetch64(s, off + len - 16)));
    a = add(a, d);
    do {
      a = mul(xor(a, mul(shiftMix(mul(fetch64(s, off), k1)), k1)), k1);
      b = xor(b, a);
      c = mul(xor(c, mul(shiftMix(mul(fetch64(s, off + 8), k1)), k1)), k1);
      d = xor(d, c);
      off += 16;
      l -= 16;
    } while (l > 0);
  }
  a = hashLen16(a, c);
  b = hashLen16(d, b);
  return [xor(a, b), hashLen16(b, a)];
}

function cityHash128WithSeed(s: Buffer, off: number, len: number, seed: Pair): Pair {
  if (len < 128) return cityMurmur(s, off, len, seed);
  let [x, y] = seed;
  let z = mul(num(len), k1);
  const f = (at: number) => fetch64(s, off + at);
  const v0 = add(mul(rot(xor(y, k1), 49), k1), f(0));
  let v: Pair = [v0, add(mul(rot(v0, 42), k1), f(8))];
  let w: Pair = [add(mul(rot(add(y, z), 35), k1), x), mul(rot(add(x, f(88)), 53), k1)];
  const round = () => {
    x = mul(rot(add(add(add(x, y), v[0]), f(16)), 37), k1);
    y = mul(rot(add(add(y, v[1]), f(48)), 42), k1);
    x = xor(x, w[1]);
    y = xor(y, v[0]);
    z = rot(xor(z, w[0]), 33);
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
  y = add(add(y, mul(rot(w[0], 37), k0)), z);
  x = add(x, mul(rot(add(v[0], z), 49), k0));
  for (let done = 0; done < len;) {
    done += 32;
    y = add(mul(rot(sub(y, x), 42), k0), v[1]);
    w[0] = add(w[0], f(len - done + 16));
    x = add(mul(rot(x, 49), k0), w[0]);
    w[0] = add(w[0], v[0]);
    v = weak32(s, off + len - done, v[0], v[1]);
  }
  x = hashLen16(x, v[0]);
  y = hashLen16(y, w[0]);
  return [add(hashLen16(add(x, v[1]), w[1]), y), hashLen16(add(x, w[1]), add(y, v[1]))];
}

const toBig = (v: U64) => (BigInt(v.h) << 32n) | BigInt(v.l);

/** CityHash128 v1.0.2 of `s`: [low 64 bits, high 64 bits]. */
export function cityHash128(s: Buffer): [bigint, bigint] {
  const len = s.length;
  let r: Pair;
  if (len >= 16) r = cityHash128WithSeed(s, 16, len - 16, [xor(fetch64(s, 0), k3), fetch64(s, 8)]);
  else if (len >= 8) r = cityHash128WithSeed(s, 0, 0, [xor(fetch64(s, 0), mul(num(len), k0)), xor(fetch64(s, len - 8), k1)]);
  else r = cityHash128WithSeed(s, 0, len, [k0, k1]);
  return [toBig(r[0]), toBig(r[1])];
}
