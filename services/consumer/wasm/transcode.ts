// AssemblyScript, compiled to ../src/transcode.wasm by `npm run build:wasm` (options in asconfig.json;
// services/consumer/README.md says why and how it is checked).
//
// The canonical transcoder's byte loop: a bus value in the ingest's exact JSON form straight into a
// RowBinary row (the grammar of JSON.stringify of a StoredEvent, nothing looser; what it declines goes
// through JSON.parse and the schema). Everything that must agree with the schema comes from the glue
// (src/canonical-transcode.ts) at init(): the length limits, the key literals, the byte-class and
// escape tables. Two things it leaves to JavaScript, so that one implementation each stays the only
// one: received_at (the calendar check and ms conversion, isValidReceivedAt / receivedAtMs) and
// numbers that are not short integers (decimal → double rounding is Number()'s). For those it leaves
// an 8-byte hole in the row and records where; the glue fills the holes or declines.
//
// Why WebAssembly: a JavaScript byte loop costs ~1–2 ns a byte on a 2-core machine
// (bench:pipeline): the 690-byte event took 6.8 µs in JS; here about 1.

const NO: i32 = -1;
const QUOTE: i32 = 0x22;
const BACKSLASH: i32 = 0x5c;
const COMMA: i32 = 0x2c;
const MINUS: i32 = 0x2d;
const PLAIN: i32 = 0;
const END: i32 = 1;
const ESCAPE: i32 = 2;

// Tables laid out by the glue (addresses passed to init).
let limits: usize = 0; // (min i32, max i32) per limit index
let keys: usize = 0; // (address u32, length u32) per literal index
let textClass: usize = 0; let tokenClass: usize = 0; // 256 bytes each
let escaped: usize = 0; // 128 bytes: the byte a one-character escape stands for, 0 = none
let hex: usize = 0; // 256 signed bytes: hex digit value or -1
let result: usize = 0; // received_at (src quote, out slot), then the patch count and patches
let minQuantity: f64 = 0; let maxQuantity: f64 = 0; let maxItems: i32 = 0;

// Limit indices (the glue's LIMIT_ORDER).
const L_EVENT = 0; const L_TOKEN = 1; const L_CHATBOT = 2; const L_POPUP = 3; const L_OPEN_WAY = 4;
const L_ORDER = 5; const L_CURRENCY = 6; const L_URL = 7; const L_UA = 8; const L_CLIENT_HASH = 9;
const L_DATA = 10; const L_ITEM_ID = 11; const L_ITEM_CURRENCY = 12; const L_NONE = 13; const L_SEGMENT = 14; // 14..17
// Literal indices (the glue's LITERALS): 0..23 event keys, 24..27 item keys, then these.
const K_ITEM = 24; const K_TRUE = 28; const K_FALSE = 29; const K_NULL = 30; const K_CONTROL = 31; const K_TEST = 32;
const K_EXPOSED = 33; const K_HELD_OUT = 34; const K_EMPTY = 35;

// State of one call.
let srcEnd: usize = 0; let out: usize = 0; let patches: u32 = 0; let intValue: f64 = 0;

export function init(limitsAt: usize, keysAt: usize, textAt: usize, tokenAt: usize, escapedAt: usize, hexAt: usize,
  resultAt: usize, minQ: f64, maxQ: f64, maxItemCount: i32): void {
  limits = limitsAt; keys = keysAt; textClass = textAt; tokenClass = tokenAt; escaped = escapedAt; hex = hexAt;
  result = resultAt; minQuantity = minQ; maxQuantity = maxQ; maxItems = maxItemCount;
}

@inline function at(p: usize): i32 { return p < srcEnd ? <i32>load<u8>(p) : -1; }

/** Address after literal k if src continues with it at p, else 0 (0 stays 0, so calls chain). */
function literal(p: usize, k: i32): usize {
  if (p == 0) return 0;
  const lit = <usize>load<u32>(keys + (<usize>k << 3));
  const len = <usize>load<u32>(keys + (<usize>k << 3) + 4);
  if (p + len > srcEnd) return 0;
  let i: usize = 0;
  // Eight bytes at a time: the keys are 8-17 bytes long.
  for (; i + 8 <= len; i += 8) if (load<u64>(p + i) != load<u64>(lit + i)) return 0;
  for (; i < len; i++) if (load<u8>(p + i) != load<u8>(lit + i)) return 0;
  return p + len;
}

function varint(n: u32): void {
  while (n >= 0x80) { store<u8>(out++, (n & 0x7f) | 0x80); n >>= 7; }
  store<u8>(out++, n);
}

/** Code unit of the 4 hex digits at p when < 0x80, else -1. */
function unicodeEscape(p: usize): i32 {
  if (p + 4 > srcEnd) return NO;
  const a = <i32>load<i8>(hex + load<u8>(p));
  const b = <i32>load<i8>(hex + load<u8>(p + 1));
  const c = <i32>load<i8>(hex + load<u8>(p + 2));
  const d = <i32>load<i8>(hex + load<u8>(p + 3));
  if (a < 0 || b < 0 || c < 0 || d < 0) return NO;
  const v = (a << 12) | (b << 8) | (c << 4) | d;
  return v < 0x80 ? v : NO;
}

/** Room a String's length prefix may need: its body is written after it, then moved up. */
const MAX_VARINT: usize = 5;

/**
 * A JSON string of ASCII characters at p, written as a RowBinary String; 0 = decline. One
 * pass: bytes are copied (escapes decoded) while scanning, 16 at a time where no byte in them
 * is special (a quote, a backslash, a control character or non-ASCII, which all decline or
 * end the string in TEXT). The token's class table (no escapes, its pattern's characters) goes
 * byte by byte: it is short.
 */
function string(p: usize, limit: i32, classes: usize): usize {
  if (p == 0 || at(p) != QUOTE) return 0;
  let k = p + 1;
  const body = out + MAX_VARINT;
  let o = body;
  const simd = classes == textClass;
  for (;;) {
    if (simd && k + 16 <= srcEnd) {
      const v = v128.load(k);
      const special = v128.or(
        v128.or(i8x16.lt_u(v, i8x16.splat(0x20)), i8x16.lt_s(v, i8x16.splat(0))),
        v128.or(i8x16.eq(v, i8x16.splat(<i8>QUOTE)), i8x16.eq(v, i8x16.splat(<i8>BACKSLASH))));
      // The whole 16 bytes are stored; whatever follows a special byte is overwritten next.
      v128.store(o, v);
      const mask = i8x16.bitmask(special);
      if (mask == 0) { k += 16; o += 16; continue; }
      const plain = <usize>ctz(mask);
      k += plain;
      o += plain;
    }
    const c = at(k);
    if (c < 0) return 0;
    const cls = <i32>load<u8>(classes + c);
    if (cls == PLAIN) { store<u8>(o++, c); k++; continue; }
    if (cls == END) break;
    if (cls != ESCAPE) return 0;
    const e = at(k + 1);
    if (e == 0x75) {
      const u = unicodeEscape(k + 2);
      if (u == NO) return 0;
      store<u8>(o++, u);
      k += 6;
    } else if (e >= 0 && e < 128 && load<u8>(escaped + e) != 0) {
      store<u8>(o++, load<u8>(escaped + e));
      k += 2;
    } else return 0;
  }
  const len = <i32>(o - body);
  const lim = limits + (<usize>limit << 3);
  if (len < load<i32>(lim) || len > load<i32>(lim + 4)) return 0;
  varint(<u32>len);
  if (out != body) memory.copy(out, body, <usize>len);
  out += <usize>len;
  return k + 1;
}

@inline function isDigit(c: i32): bool { return c >= 0x30 && c <= 0x39; }

/**
 * A JSON number at p (grammar checked); returns the address after it. A short integer (≤ 15
 * digits: exact in a double, -0 included) is left in intValue with wasInteger set; anything
 * else is recorded as a hole at `out` for the glue to fill with Number(text).
 */
let wasInteger = false;
function number(p: usize): usize {
  if (p == 0) return 0;
  const from = p;
  const negative = at(p) == MINUS;
  if (negative) p++;
  if (at(p) == 0x30) p++;
  else if (isDigit(at(p))) while (isDigit(at(p))) p++;
  else return 0;
  const integerEnd = p;
  if (at(p) == 0x2e) {
    p++;
    if (!isDigit(at(p))) return 0;
    while (isDigit(at(p))) p++;
  }
  if (at(p) == 0x65 || at(p) == 0x45) {
    p++;
    if (at(p) == 0x2b || at(p) == MINUS) p++;
    if (!isDigit(at(p))) return 0;
    while (isDigit(at(p))) p++;
  }
  if (p == integerEnd && p - from <= 15) {
    let n: f64 = 0;
    for (let k = negative ? from + 1 : from; k < p; k++) n = n * 10 + <f64>(<i32>load<u8>(k) - 0x30);
    intValue = negative ? -n : n;
    wasInteger = true;
    return p;
  }
  wasInteger = false;
  // A hole for Number(text): (out slot, text start, text end), relative to the call's bases.
  const entry = result + 12 + (<usize>patches) * 12;
  store<u32>(entry, <u32>(out - outBase));
  store<u32>(entry + 4, <u32>(from - srcBase));
  store<u32>(entry + 8, <u32>(p - srcBase));
  patches++;
  return p;
}

/** number() written as a Float64 (an integer directly, anything else as a hole). */
function float(p: usize): usize {
  p = number(p);
  if (p == 0) return 0;
  if (wasInteger) store<f64>(out, intValue);
  out += 8;
  return p;
}

function items(p: usize): usize {
  if (p == 0 || at(p) != 0x5b) return 0;
  const countAt = out++;
  let count: i32 = 0;
  p++;
  if (at(p) == 0x5d) { store<u8>(countAt, 0); return p + 1; }
  for (;;) {
    if (++count > maxItems) return 0;
    p = string(literal(p, K_ITEM), L_ITEM_ID, textClass);
    p = float(literal(p, K_ITEM + 1));
    p = number(literal(p, K_ITEM + 2));
    // Only a short integer in range: "2.0" or "1e3" are left to the general path.
    if (p == 0 || !wasInteger || intValue < minQuantity || intValue > maxQuantity) return 0;
    store<u32>(out, <u32>intValue);
    out += 4;
    p = string(literal(p, K_ITEM + 3), L_ITEM_CURRENCY, textClass);
    if (p == 0 || at(p) != 0x7d) return 0;
    p++;
    if (at(p) == 0x5d) break;
    if (at(p) != COMMA) return 0;
    p++;
  }
  store<u8>(countAt, <u8>count);
  return p + 1;
}

/** `"` + 36 characters of lower-case hex and dashes in UUID layout + `"` at p; writes the 16 bytes. */
function uuid(p: usize): usize {
  if (p == 0 || p + 38 > srcEnd || load<u8>(p) != QUOTE || load<u8>(p + 37) != QUOTE) return 0;
  let nibble: i32 = 0;
  for (let k: usize = 1; k <= 36; k++) {
    const c = <i32>load<u8>(p + k);
    if (k == 9 || k == 14 || k == 19 || k == 24) {
      if (c != MINUS) return 0;
      continue;
    }
    if (!(isDigit(c) || (c >= 0x61 && c <= 0x66))) return 0;
    const x = <i32>load<i8>(hex + c);
    const byte = nibble >> 1;
    // ClickHouse's UUID: each 64-bit half little-endian (RowWriter.uuid).
    const dst = out + <usize>(byte < 8 ? 7 - byte : 23 - byte);
    store<u8>(dst, nibble & 1 ? load<u8>(dst) | x : x << 4);
    nibble++;
  }
  out += 16;
  return p + 38;
}

/** `true` or `false` at p, written as a Bool byte. */
function boolean(p: usize): usize {
  if (p == 0) return 0;
  const t = literal(p, K_TRUE);
  if (t != 0) { store<u8>(out++, 1); return t; }
  const f = literal(p, K_FALSE);
  if (f != 0) store<u8>(out++, 0);
  return f;
}

let srcBase: usize = 0;
let outBase: usize = 0;

/**
 * Transcodes the value at [src, src + length) into out; returns the row's length, or -1 to
 * decline. result: [0] received_at's opening quote (relative to src), [4] its 8-byte slot
 * (relative to out), [8] the number of holes, then (slot, text start, text end) per hole.
 */
export function transcode(src: usize, length: i32, dst: usize): i32 {
  srcBase = src; outBase = dst; srcEnd = src + <usize>length; out = dst; patches = 0;
  let p = uuid(literal(src, 0));
  p = string(literal(p, 1), L_EVENT, textClass);
  p = string(literal(p, 2), L_TOKEN, tokenClass);
  p = string(literal(p, 3), L_CHATBOT, textClass);
  p = literal(p, 4);
  if (p == 0 || p + 25 > srcEnd || load<u8>(p) != QUOTE || load<u8>(p + 24) != QUOTE) return NO;
  store<u32>(result, <u32>(p - src));
  store<u32>(result + 4, <u32>(out - dst));
  out += 8;
  p = boolean(literal(p + 25, 5));
  p = literal(p, 6);
  let q = literal(p, K_NULL);
  if (q != 0) { store<u8>(out++, 1); p = q; } else if (literal(p, K_CONTROL) != 0 || literal(p, K_TEST) != 0) {
    store<u8>(out++, 0);
    p = string(p, L_NONE, textClass);
  } else return NO;
  p = string(literal(p, 7), L_POPUP, textClass);
  p = string(literal(p, 8), L_OPEN_WAY, textClass);
  p = string(literal(p, 9), L_ORDER, textClass);
  p = string(literal(p, 10), L_CURRENCY, textClass);
  p = float(literal(p, 11));
  p = literal(p, 12);
  if (p == 0) return NO;
  q = literal(p, K_NULL);
  if (q != 0) { store<u8>(out++, 1); p = q; } else {
    store<u8>(out++, 0);
    p = float(p);
  }
  p = items(literal(p, 13));
  p = string(literal(p, 14), L_URL, textClass);
  p = string(literal(p, 15), L_UA, textClass);
  p = string(literal(p, 16), L_CLIENT_HASH, textClass);
  p = string(literal(p, 17), L_DATA, textClass);
  // is_bot: the ingest always writes it; a message without it declines to the general path.
  p = boolean(literal(p, 18));
  // The segment (source, utm_medium, utm_campaign, device): always written by the ingest; without it, declined.
  for (let k = 0; k < 4; k++) p = string(literal(p, 19 + k), L_SEGMENT + k, textClass);
  // The holdout arm: always written by the ingest, one of three texts (the schema's union); else declined.
  p = literal(p, 23);
  if (p == 0 || (literal(p, K_EXPOSED) == 0 && literal(p, K_HELD_OUT) == 0 && literal(p, K_EMPTY) == 0)) return NO;
  p = string(p, L_NONE, textClass);
  if (p == 0 || p + 1 != srcEnd || load<u8>(p) != 0x7d) return NO;
  store<u32>(result + 8, patches);
  return <i32>(out - dst);
}
