import { isValidReceivedAt, receivedAtMs, StoredEvent, StoredItem } from '@chatlytics/events';
import { EVENT_COLUMNS, HEX, RowWriter } from './row-binary.js';

/**
 * The consumer's fast path: the bus value's JSON bytes straight into a RowBinary row, with no
 * JSON.parse, no event object and no per-field strings (bench:pipeline's profile: parsing,
 * the garbage it leaves and re-encoding were over half of the JavaScript thread's time).
 *
 * It only knows the CANONICAL form: exactly what encodeStoredEvent writes for an event the
 * ingest normalised — the StoredEvent properties in schema order, no whitespace, ASCII text.
 * Anything else (another key order, an extra key, non-ASCII text, a \u escape above U+007F,
 * an upper-case id, a number it would have to think about) returns undefined and the caller
 * takes the general path (JSON.parse + the schema), which alone decides what is poison. So
 * this function never rejects an event; it either produces exactly the bytes the general path
 * would (held by a differential property test) or declines.
 */
export interface TranscodedRow {
  /** event_id, lower case (the only case accepted here). */
  eventId: string;
  /** received_at text, 'YYYY-MM-DD HH:MM:SS.mmm'. */
  receivedAt: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const MINUS = 0x2d;
const NO = -1;

/** `{"event_id":`, `,"event":`, …: each key with the punctuation that precedes it. */
const keyLiteral = (keys: readonly string[]) => keys.map((k, n) => Buffer.from(`${n === 0 ? '{' : ','}"${k}":`, 'latin1'));
const KEYS = keyLiteral(EVENT_COLUMNS);
const ITEM_KEYS = keyLiteral(['item_id', 'value', 'quantity', 'currency']);
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');
const CONTROL = Buffer.from('"control"');
const TEST = Buffer.from('"test"');

/** Length limits come from the schema itself, so the two cannot drift apart. */
type Limits = { min: number; max: number };
/** TypeBox schemas are JSON Schema objects; their types just do not list the keywords. */
type Keywords = { minLength?: number; maxLength?: number; pattern?: string; maxItems?: number; minimum?: number; maximum?: number };
const kw = (schema: object) => schema as Keywords;
const limits = (schema: object): Limits => ({ min: kw(schema).minLength ?? 0, max: kw(schema).maxLength ?? Infinity });
const P = StoredEvent.properties;
const L = {
  event: limits(P.event), token: limits(P.token), chatbotId: limits(P.chatbot_id), popupVersion: limits(P.popup_version),
  openWay: limits(P.open_way), orderNum: limits(P.order_num), currency: limits(P.currency), url: limits(P.url),
  userAgent: limits(P.user_agent), clientHash: limits(P.client_hash), data: limits(P.data),
  itemId: limits(StoredItem.properties.item_id), itemCurrency: limits(StoredItem.properties.currency),
};
/** received_at's shape: the schema's own pattern (the calendar is isValidReceivedAt's). */
const RECEIVED_AT_SHAPE = new RegExp(kw(P.received_at).pattern ?? '^$');
const MAX_ITEMS = kw(P.items).maxItems ?? 50;
const MIN_QUANTITY = kw(StoredItem.properties.quantity).minimum ?? 0;
const MAX_QUANTITY = kw(StoredItem.properties.quantity).maximum ?? 0xffffffff;
if (MAX_ITEMS > 127) throw new Error('items() writes the item count as one varint byte');

/** What a byte inside a JSON string is to string(): one table load per byte. */
const PLAIN = 0;
const END = 1;
const ESCAPE = 2;
const DECLINE = 3;
/** Printable ASCII is plain; control characters (not JSON) and non-ASCII (general path) decline. */
const TEXT = new Uint8Array(256).fill(DECLINE);
TEXT.fill(PLAIN, 0x20, 0x80);
TEXT[QUOTE] = END;
TEXT[BACKSLASH] = ESCAPE;
/** The token's pattern, ^[A-Za-z0-9_-]+$ (a unit test pins the schema's pattern to it). */
const TOKEN = new Uint8Array(256).fill(DECLINE);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-') TOKEN[c.charCodeAt(0)] = PLAIN;
TOKEN[QUOTE] = END;
/** The one-character escapes of JSON and the byte each stands for (0 = not an escape). */
const ESCAPED = new Uint8Array(128);
for (const [c, v] of [['"', 0x22], ['\\', 0x5c], ['/', 0x2f], ['b', 0x08], ['f', 0x0c], ['n', 0x0a], ['r', 0x0d], ['t', 0x09]] as const) ESCAPED[c.charCodeAt(0)] = v;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * Transcodes one bus value; undefined = not canonical (w.pos is then back where it was and
 * the general path must decide). On success the row's bytes are w.buf[start, w.pos).
 */
export function transcodeCanonicalEvent(src: Buffer, w: RowWriter): TranscodedRow | undefined {
  const start = w.pos;
  // Worst case the row is about as long as the JSON (strings shrink, numbers become ≤ 8 bytes,
  // an empty items array stays 1 byte): reserving once keeps bounds checks out of the loops.
  w.ensure(src.length + 64);
  const row = transcode(src, w);
  if (row === undefined) w.pos = start;
  return row;
}

function transcode(src: Buffer, w: RowWriter): TranscodedRow | undefined {
  let i = literal(src, 0, KEYS[0]);
  if (i === NO || !isUuidAt(src, i)) return undefined;
  const eventId = src.toString('latin1', i + 1, i + 37);
  w.uuid(eventId);
  i = literal(src, i + 38, KEYS[1]);
  i = string(src, i, w, L.event, TEXT);
  i = string(src, literal(src, i, KEYS[2]), w, L.token, TOKEN);
  i = string(src, literal(src, i, KEYS[3]), w, L.chatbotId, TEXT);
  i = literal(src, i, KEYS[4]);
  if (i === NO || i + 25 > src.length || src[i] !== QUOTE || src[i + 24] !== QUOTE) return undefined;
  const receivedAt = src.toString('latin1', i + 1, i + 24);
  if (!RECEIVED_AT_SHAPE.test(receivedAt) || !isValidReceivedAt(receivedAt)) return undefined;
  w.i64(receivedAtMs(receivedAt));
  i = literal(src, i + 25, KEYS[5]);
  if (literal(src, i, TRUE) !== NO) { w.buf[w.pos++] = 1; i += 4; } else if (literal(src, i, FALSE) !== NO) { w.buf[w.pos++] = 0; i += 5; } else return undefined;
  i = literal(src, i, KEYS[6]);
  if (literal(src, i, NULL) !== NO) { w.buf[w.pos++] = 1; i += 4; } else if (literal(src, i, CONTROL) !== NO || literal(src, i, TEST) !== NO) {
    w.buf[w.pos++] = 0;
    i = string(src, i, w, NO_LIMITS, TEXT);
  } else return undefined;
  i = string(src, literal(src, i, KEYS[7]), w, L.popupVersion, TEXT);
  i = string(src, literal(src, i, KEYS[8]), w, L.openWay, TEXT);
  i = string(src, literal(src, i, KEYS[9]), w, L.orderNum, TEXT);
  i = string(src, literal(src, i, KEYS[10]), w, L.currency, TEXT);
  i = number(src, literal(src, i, KEYS[11]));
  if (i === NO) return undefined;
  w.f64(parsed);
  i = literal(src, i, KEYS[12]);
  if (literal(src, i, NULL) !== NO) { w.buf[w.pos++] = 1; i += 4; } else {
    i = number(src, i);
    if (i === NO) return undefined;
    w.buf[w.pos++] = 0;
    w.f64(parsed);
  }
  i = items(src, literal(src, i, KEYS[13]), w);
  i = string(src, literal(src, i, KEYS[14]), w, L.url, TEXT);
  i = string(src, literal(src, i, KEYS[15]), w, L.userAgent, TEXT);
  i = string(src, literal(src, i, KEYS[16]), w, L.clientHash, TEXT);
  i = string(src, literal(src, i, KEYS[17]), w, L.data, TEXT);
  // Nothing after the closing brace, not even whitespace (JSON.parse would allow it; the
  // general path handles that rare case).
  if (i === NO || i + 1 !== src.length || src[i] !== 0x7d) return undefined;
  return { eventId, receivedAt };
}

const NO_LIMITS: Limits = { min: 0, max: Infinity };

/** Index after `lit` if src continues with it at i, else NO. NO stays NO (so calls chain). */
function literal(src: Buffer, i: number, lit: Buffer): number {
  if (i === NO || i + lit.length > src.length) return NO;
  for (let k = 0; k < lit.length; k++) if (src[i + k] !== lit[k]) return NO;
  return i + lit.length;
}

/**
 * A JSON string of ASCII characters at i, written as a RowBinary String. Escapes are decoded
 * (\" \\ \/ \b \f \n \r \t, and \uXXXX below U+0080); a raw byte ≥ 0x80 or any other \u
 * declines, so a length in bytes here is a length in UTF-16 units, as the schema counts it.
 * `classes` is TEXT, or TOKEN for the token (its pattern allows no escapes).
 */
function string(src: Buffer, i: number, w: RowWriter, lim: Limits, classes: Uint8Array): number {
  if (i === NO || src[i] !== QUOTE) return NO;
  const from = i + 1;
  const n = src.length;
  let k = from;
  /** Bytes the escapes take beyond the characters they stand for. */
  let saved = 0;
  for (;;) {
    // The hot loop: one table load per byte (JS byte loops cost 1.5–3 ns a byte on this machine).
    let cls = PLAIN;
    while (k < n && (cls = classes[src[k]]) === PLAIN) k++;
    if (k >= n) return NO;
    if (cls === END) break;
    if (cls !== ESCAPE) return NO;
    const e = src[k + 1];
    if (e === 0x75) { // \uXXXX
      if (unicodeEscape(src, k + 2) === NO) return NO;
      k += 6;
      saved += 5;
    } else if (e < 128 && ESCAPED[e] !== 0) {
      k += 2;
      saved += 1;
    } else return NO;
  }
  const len = k - from - saved;
  if (len < lim.min || len > lim.max) return NO;
  // Room: w.ensure(src.length + 64) in transcodeCanonicalEvent covers len + a ≤ 5-byte varint.
  w.varint(len);
  const buf = w.buf;
  let at = w.pos;
  if (saved === 0) {
    // A native copy costs a call (~50 ns): worth it only for the long strings.
    if (len > 40) src.copy(buf, at, from, k);
    else for (let j = from; j < k; j++) buf[at++] = src[j];
    w.pos += len;
    return k + 1;
  }
  for (let j = from; j < k;) {
    const c = src[j];
    if (c !== BACKSLASH) { buf[at++] = c; j++; continue; }
    const e = src[j + 1];
    if (e === 0x75) { buf[at++] = unicodeEscape(src, j + 2); j += 6; } else { buf[at++] = ESCAPED[e]; j += 2; }
  }
  w.pos = at;
  return k + 1;
}

/** The code unit of the 4 hex digits at i when it is ASCII (< 0x80), else NO. */
function unicodeEscape(src: Buffer, i: number): number {
  if (i + 4 > src.length) return NO;
  const a = HEX[src[i]];
  const b = HEX[src[i + 1]];
  const c = HEX[src[i + 2]];
  const d = HEX[src[i + 3]];
  if (a < 0 || b < 0 || c < 0 || d < 0) return NO;
  const v = (a << 12) | (b << 8) | (c << 4) | d;
  return v < 0x80 ? v : NO;
}

/** The value of the last number() that succeeded (one module slot: no object per number). */
let parsed = 0;

/**
 * A JSON number at i (the grammar checked byte by byte), its value left in `parsed`; NO when
 * it is not one or not finite. Short integers are summed directly; the rest goes through
 * Number(), which rounds decimal text exactly as JSON.parse does.
 */
function number(src: Buffer, i: number): number {
  if (i === NO) return NO;
  const from = i;
  const negative = src[i] === MINUS;
  if (negative) i++;
  if (src[i] === 0x30) i++;
  else if (isDigit(src[i])) while (isDigit(src[i])) i++;
  else return NO;
  const integerEnd = i;
  if (src[i] === 0x2e) { // fraction
    i++;
    if (!isDigit(src[i])) return NO;
    while (isDigit(src[i])) i++;
  }
  if (src[i] === 0x65 || src[i] === 0x45) { // exponent
    i++;
    if (src[i] === 0x2b || src[i] === MINUS) i++;
    if (!isDigit(src[i])) return NO;
    while (isDigit(src[i])) i++;
  }
  // ≤ 15 digits are exact in a double, so the sum is the value JSON.parse gives (-0 included).
  if (i === integerEnd && i - from <= 15) {
    let n = 0;
    for (let k = negative ? from + 1 : from; k < i; k++) n = n * 10 + src[k] - 0x30;
    parsed = negative ? -n : n;
    return i;
  }
  parsed = Number(src.toString('latin1', from, i));
  return Number.isFinite(parsed) ? i : NO;
}

/** `[]` or `[{"item_id":…,"value":…,"quantity":…,"currency":…},…]` as Array(Tuple(…)). */
function items(src: Buffer, i: number, w: RowWriter): number {
  if (i === NO || src[i] !== 0x5b) return NO;
  // maxItems (50) < 128: the count is one varint byte, filled in at the end.
  const countAt = w.pos++;
  let count = 0;
  i++;
  if (src[i] === 0x5d) {
    w.buf[countAt] = 0;
    return i + 1;
  }
  for (;;) {
    if (++count > MAX_ITEMS) return NO;
    // Each item is at most its JSON's length in RowBinary too, so the reservation holds.
    i = string(src, literal(src, i, ITEM_KEYS[0]), w, L.itemId, TEXT);
    i = number(src, literal(src, i, ITEM_KEYS[1]));
    if (i === NO) return NO;
    w.f64(parsed);
    i = number(src, literal(src, i, ITEM_KEYS[2]));
    if (i === NO || !Number.isInteger(parsed) || parsed < MIN_QUANTITY || parsed > MAX_QUANTITY) return NO;
    w.u32(parsed);
    i = string(src, literal(src, i, ITEM_KEYS[3]), w, L.itemCurrency, TEXT);
    if (i === NO || src[i] !== 0x7d) return NO;
    i++;
    if (src[i] === 0x5d) break;
    if (src[i] !== COMMA) return NO;
    i++;
  }
  w.buf[countAt] = count;
  return i + 1;
}

/** `"` + 36 characters of lower-case hex and dashes in UUID layout + `"` at i. */
function isUuidAt(src: Buffer, i: number): boolean {
  if (i + 38 > src.length || src[i] !== QUOTE || src[i + 37] !== QUOTE) return false;
  for (let k = 1; k <= 36; k++) {
    const c = src[i + k];
    if (k === 9 || k === 14 || k === 19 || k === 24) {
      if (c !== MINUS) return false;
    } else if (!(isDigit(c) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}
