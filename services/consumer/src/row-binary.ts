import { receivedAtMs, type StoredEvent } from '@chatlytics/events';

/**
 * The `events` columns the consumer inserts, in RowBinary order. The same names, in the same
 * order, as the StoredEvent schema's properties (a unit test holds the two together): a
 * property added there must be added here and to encodeEventRow. `inserted_at` is left to
 * its DEFAULT.
 */
export const EVENT_COLUMNS = [
  'event_id', 'event', 'token', 'chatbot_id', 'received_at', 'ab_test', 'ab_group', 'popup_version',
  'open_way', 'order_num', 'currency', 'total_value', 'total_value_base', 'items', 'url', 'user_agent',
  'client_hash', 'data', 'is_bot', 'source', 'utm_medium', 'utm_campaign', 'device', 'holdout',
] as const;

/**
 * What the consumer inserts into `events_input_v2` (migration 0160): each row's EVENT_COLUMNS,
 * then its token's id and its insert's key (two UInt64, the row's last ROW_TAIL_BYTES): the
 * rows are written first with zeros there, then token-ids.ts fills the ids (once the batch's
 * tokens are looked up) and events-insert.ts the key (once the flush is put together).
 */
export const INSERT_COLUMNS = [...EVENT_COLUMNS, 'token_id', 'insert_key'] as const;
export const ROW_TAIL_BYTES = 16;

/** Hex digit values by character code (-1: not a hex digit); 256 entries, so any byte indexes it. */
const HEX_DIGITS = '0123456789abcdef';
export const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) HEX[HEX_DIGITS.charCodeAt(i)] = i;
for (let i = 10; i < 16; i++) HEX['ABCDEF'.charCodeAt(i - 10)] = i;

/**
 * A growing Buffer that RowBinary values are appended to. Why RowBinary: ClickHouse reads it
 * with about a third of the CPU JSON formats cost (bench:pipeline measured 2.4–3.5 vs 7.8–8.3
 * µs per event), and on 2 cores the insert is the slower half of the pipeline. The bytes
 * never become JS strings, so nothing of a batch is left for the garbage collector either.
 */
export class RowWriter {
  /** The current Buffer (replaced when it grows): the canonical transcoder writes into it directly. */
  buf: Buffer;
  pos = 0;

  /** `initial`: a size to allocate, or a Buffer to write into (body-pool.ts). */
  constructor(initial: number | Buffer) {
    this.buf = typeof initial === 'number' ? Buffer.allocUnsafe(Math.max(1024, initial)) : initial;
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** Room for n more bytes at pos. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  varint(n: number): void {
    this.ensure(5);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  /** varint byte length, then UTF-8 (lone surrogates become U+FFFD, as in Buffer.byteLength). */
  string(v: string): void {
    // ≤ 42 UTF-16 units are ≤ 126 UTF-8 bytes: the one-byte length can be written afterwards,
    // saving a byteLength pass over the (many, short) strings of an event.
    if (v.length <= 42) {
      this.ensure(1 + v.length * 3);
      const buf = this.buf;
      const at = this.pos + 1;
      // ASCII by hand: for strings this short the call into Buffer.write costs more than the
      // copy (bench:pipeline profile). Anything else goes through the UTF-8 encoder.
      let i = 0;
      for (; i < v.length; i++) {
        const c = v.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at + i] = c;
      }
      const n = i === v.length ? i : buf.write(v, at);
      buf[this.pos] = n;
      this.pos = at + n;
      return;
    }
    const n = Buffer.byteLength(v);
    this.varint(n);
    this.ensure(n);
    this.pos += this.buf.write(v, this.pos);
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  u32(v: number): void {
    this.ensure(4);
    this.pos = this.buf.writeUInt32LE(v, this.pos);
  }

  f64(v: number): void {
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(v, this.pos);
  }

  /** Int64 LE of a safe integer: 48 bits written, then the sign extended (ms times fit 48 bits). */
  i64(v: number): void {
    this.ensure(8);
    this.buf.writeIntLE(v, this.pos, 6);
    const ext = v < 0 ? 0xff : 0;
    this.buf[this.pos + 6] = ext;
    this.buf[this.pos + 7] = ext;
    this.pos += 8;
  }

  /** ClickHouse's UUID: the high 64 bits little-endian, then the low 64 bits little-endian. */
  uuid(v: string): void {
    this.ensure(16);
    let nibble = 0;
    for (let i = 0; i < v.length; i++) {
      const code = v.charCodeAt(i);
      if (code === 45) continue; // '-'
      const x = code < 256 ? HEX[code] : -1;
      if (x < 0 || nibble >= 32) throw new TypeError(`not a UUID: ${v}`);
      const byte = nibble >> 1;
      // Byte k of the text (0..15) goes to position 7-k in the first half, 23-k in the second.
      const at = this.pos + (byte < 8 ? 7 - byte : 23 - byte);
      this.buf[at] = nibble & 1 ? this.buf[at] | x : x << 4;
      nibble++;
    }
    if (nibble !== 32) throw new TypeError(`not a UUID: ${v}`);
    this.pos += 16;
  }
}

/** The lower-case text of the UUID RowWriter.uuid wrote at buf[at, at + 16). */
export function uuidText(buf: Buffer, at: number): string {
  let s = '';
  for (let byte = 0; byte < 16; byte++) {
    if (byte === 4 || byte === 6 || byte === 8 || byte === 10) s += '-';
    const v = buf[at + (byte < 8 ? 7 - byte : 23 - byte)];
    s += HEX_DIGITS[v >> 4] + HEX_DIGITS[v & 15];
  }
  return s;
}

/** A row's received_at (ms): after the id, three Strings (event, token, chatbot_id), then Int64 LE. */
export function rowReceivedAtMs(buf: Buffer, rowStart: number): number {
  let at = rowStart + 16;
  for (let s = 0; s < 3; s++) {
    let length = 0;
    for (let shift = 1; ; shift *= 128) {
      const b = buf[at++];
      length += (b & 0x7f) * shift;
      if (b < 0x80) break;
    }
    at += length;
  }
  // The low 48 bits and the sign, as i64() wrote them (ms times fit 48 bits).
  return buf.readIntLE(at, 6);
}

/** Index just past the varint-prefixed String (or byte run of that length) at `at`. */
function skipString(buf: Buffer, at: number): number {
  let length = 0;
  for (let shift = 1; ; shift *= 128) {
    const b = buf[at++];
    length += (b & 0x7f) * shift;
    if (b < 0x80) break;
  }
  return at + length;
}

/** Where a row's token and chatbot_id are: the bytes [tokenAt, chatbotEnd) hold both, varint-prefixed. */
export interface RowTokenBytes { tokenAt: number; chatbotAt: number; chatbotEnd: number; isBot: boolean }

/**
 * A row's token and chatbot (their bytes, to be read only when needed) and is_bot, read by
 * walking the row's columns in encodeEventRow's order.
 */
export function rowTokenBytes(buf: Buffer, rowStart: number): RowTokenBytes {
  let at = skipString(buf, rowStart + 16); // event_id, event
  const tokenAt = at;
  const chatbotAt = skipString(buf, tokenAt);
  const chatbotEnd = skipString(buf, chatbotAt);
  at = chatbotEnd + 8 + 1; // received_at, ab_test
  at = buf[at] === 1 ? at + 1 : skipString(buf, at + 1); // ab_group: null flag, then the value
  for (let s = 0; s < 4; s++) at = skipString(buf, at); // popup_version, open_way, order_num, currency
  at += 8; // total_value
  at += buf[at] === 1 ? 1 : 9; // total_value_base
  const items = buf[at++];
  for (let i = 0; i < items; i++) at = skipString(buf, skipString(buf, at) + 8 + 4);
  for (let s = 0; s < 4; s++) at = skipString(buf, at); // url, user_agent, client_hash, data
  return { tokenAt, chatbotAt, chatbotEnd, isBot: buf[at] === 1 };
}

/** The String (UTF-8) at `at`. */
export function readString(buf: Buffer, at: number): string {
  const end = skipString(buf, at);
  let start = at;
  while (buf[start] >= 0x80) start++;
  return buf.toString('utf8', start + 1, end);
}

/** One validated event as a RowBinary row of EVENT_COLUMNS (types: clickhouse/migrations). */
export function encodeEventRow(w: RowWriter, e: StoredEvent): void {
  w.uuid(e.event_id);
  w.string(e.event); // LowCardinality(String): plain String on the wire
  w.string(e.token);
  w.string(e.chatbot_id);
  w.i64(receivedAtMs(e.received_at)); // DateTime64(3)
  w.u8(e.ab_test ? 1 : 0); // Bool
  if (e.ab_group === null) w.u8(1); // LowCardinality(Nullable(String)): null flag, then value
  else { w.u8(0); w.string(e.ab_group); }
  w.string(e.popup_version);
  w.string(e.open_way);
  w.string(e.order_num);
  w.string(e.currency);
  w.f64(e.total_value);
  if (e.total_value_base === null) w.u8(1);
  else { w.u8(0); w.f64(e.total_value_base); }
  // Array(Tuple(item_id String, value Float64, quantity UInt32, currency LowCardinality(String)))
  writeItems(w, e.items);
  w.string(e.url);
  w.string(e.user_agent);
  w.string(e.client_hash);
  w.string(e.data);
  w.u8(e.is_bot === true ? 1 : 0); // Bool; absent on messages older than the column: false
  // LowCardinality(String); absent on messages older than the columns: ''
  w.string(e.source ?? '');
  w.string(e.utm_medium ?? '');
  w.string(e.utm_campaign ?? '');
  w.string(e.device ?? '');
  w.string(e.holdout ?? ''); // LowCardinality(String); absent on messages older than the column: ''
}

function writeItems(w: RowWriter, items: StoredEvent['items']): void {
  // maxItems is 50 in the schema, so the count is one varint byte.
  if (items.length > 127) throw new RangeError('more items than one varint byte holds');
  w.u8(items.length);
  for (const i of items) {
    w.string(i.item_id);
    w.f64(i.value);
    w.u32(i.quantity);
    w.string(i.currency);
  }
}
