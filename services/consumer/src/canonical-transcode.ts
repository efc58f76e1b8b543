import { readFileSync } from 'node:fs';
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
 * an upper-case id, a number it would have to think about) returns false and the caller
 * takes the general path (JSON.parse + the schema), which alone decides what is poison. So
 * this function never rejects an event; it either produces exactly the bytes the general path
 * would (held by a differential property test) or declines.
 *
 * The byte loop is WebAssembly (../wasm/transcode.ts, built into transcode.wasm): in
 * JavaScript it cost 6.8 µs for a 690-byte event on the 2-core bench machine, more than
 * JSON.parse. Everything the schema decides is laid out here, from the schema, and handed to
 * it at start-up; received_at and non-integer numbers come back as holes this glue fills, so
 * the calendar check and decimal rounding keep one implementation each.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Length limits come from the schema itself, so the two cannot drift apart. */
type Limits = { min: number; max: number };
/** TypeBox schemas are JSON Schema objects; their types just do not list the keywords. */
type Keywords = { minLength?: number; maxLength?: number; pattern?: string; maxItems?: number; minimum?: number; maximum?: number };
const kw = (schema: object) => schema as Keywords;
const limits = (schema: object): Limits => ({ min: kw(schema).minLength ?? 0, max: kw(schema).maxLength ?? Infinity });
const P = StoredEvent.properties;
/** In the order of the module's L_* indices. */
const LIMIT_ORDER: Limits[] = [
  limits(P.event), limits(P.token), limits(P.chatbot_id), limits(P.popup_version), limits(P.open_way),
  limits(P.order_num), limits(P.currency), limits(P.url), limits(P.user_agent), limits(P.client_hash),
  limits(P.data), limits(StoredItem.properties.item_id), limits(StoredItem.properties.currency), { min: 0, max: Infinity },
  limits(P.source), limits(P.utm_medium), limits(P.utm_campaign), limits(P.device),
];
/** received_at's shape: the schema's own pattern (the calendar is isValidReceivedAt's). */
const RECEIVED_AT_SHAPE = new RegExp(kw(P.received_at).pattern ?? '^$');
const MAX_ITEMS = kw(P.items).maxItems ?? 50;
const MIN_QUANTITY = kw(StoredItem.properties.quantity).minimum ?? 0;
const MAX_QUANTITY = kw(StoredItem.properties.quantity).maximum ?? 0xffffffff;
if (MAX_ITEMS > 127) throw new Error('the module writes the item count as one varint byte');

/** `{"event_id":`, `,"event":`, …: each key with the punctuation that precedes it. */
const keyLiterals = (keys: readonly string[]) => keys.map((k, n) => `${n === 0 ? '{' : ','}"${k}":`);
/** In the order of the module's literal indices (K_*): event keys, item keys, then values. */
const LITERALS = [
  ...keyLiterals(EVENT_COLUMNS), ...keyLiterals(['item_id', 'value', 'quantity', 'currency']),
  'true', 'false', 'null', '"control"', '"test"', '"exposed"', '"holdout"', '""',
];

/** What a byte inside a JSON string is to the module's string(): one table load per byte. */
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

/** The WebAssembly API used here (TypeScript's lib declares it only alongside the DOM's). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};

interface Exports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  init(limits: number, keys: number, text: number, token: number, escaped: number, hex: number, result: number, minQ: number, maxQ: number, maxItems: number): void;
  transcode(src: number, length: number, dst: number): number;
}

/**
 * Memory layout. The module keeps its own state in globals and has no data of its own, so
 * everything from the second 64 KiB page on is ours: the tables, the result area (received_at's
 * position, the holes: ≤ 2 + 50 items of 12 bytes), then the input and, right after it, the row.
 */
const PAGE = 65536;
// keys: 8 bytes per literal, room for 64 (36 today).
const AT = { limits: PAGE, keys: PAGE + 256, text: PAGE + 768, token: PAGE + 1024, escaped: PAGE + 1280, hex: PAGE + 1408, result: PAGE + 2048, literals: PAGE + 4096 };
if (LITERALS.length > 64 || LIMIT_ORDER.length > 32) throw new Error('the layout holds 64 literals and 32 limits');
const INPUT = 2 * PAGE;

const wasm = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(new URL('./transcode.wasm', import.meta.url)))).exports as unknown as Exports;
let mem = Buffer.from(wasm.memory.buffer);
let words = new Uint32Array(wasm.memory.buffer);

/**
 * Room for a value of `length` bytes and, after it, its row. A row is never longer than its
 * JSON (each value there follows a key of ≥ 7 bytes the row leaves out); the 128 spare bytes
 * cover the module's transient writes: a string body written 5 bytes on (room for its length)
 * and 16-byte SIMD stores that reach past the string's end.
 */
function reserve(length: number): void {
  const needed = INPUT + 2 * length + 128;
  if (needed <= mem.length) return;
  wasm.memory.grow(Math.ceil((needed - mem.length) / PAGE));
  // Growing detaches the old ArrayBuffer: every view is made again.
  mem = Buffer.from(wasm.memory.buffer);
  words = new Uint32Array(wasm.memory.buffer);
}

function layOut(): void {
  reserve(64 * 1024);
  LIMIT_ORDER.forEach((l, n) => {
    mem.writeInt32LE(l.min, AT.limits + n * 8);
    mem.writeInt32LE(Math.min(l.max, 0x7fffffff), AT.limits + n * 8 + 4);
  });
  let at = AT.literals;
  LITERALS.forEach((lit, n) => {
    mem.writeUInt32LE(at, AT.keys + n * 8);
    mem.writeUInt32LE(lit.length, AT.keys + n * 8 + 4);
    at += mem.write(lit, at, 'latin1');
  });
  mem.set(TEXT, AT.text);
  mem.set(TOKEN, AT.token);
  mem.set(ESCAPED, AT.escaped);
  mem.set(new Uint8Array(HEX.buffer, HEX.byteOffset, HEX.length), AT.hex);
  wasm.init(AT.limits, AT.keys, AT.text, AT.token, AT.escaped, AT.hex, AT.result, MIN_QUANTITY, MAX_QUANTITY, MAX_ITEMS);
}
layOut();

/**
 * Transcodes one bus value; false = not canonical (w is then untouched and the general path
 * must decide). On success the row's bytes are appended to w.
 */
export function transcodeCanonicalEvent(src: Buffer, w: RowWriter): boolean {
  reserve(src.length);
  mem.set(src, INPUT);
  const output = INPUT + src.length;
  const length = wasm.transcode(INPUT, src.length, output);
  if (length < 0) return false;
  const r = AT.result >> 2;
  const quote = words[r];
  const receivedAt = src.toString('latin1', quote + 1, quote + 24);
  if (!RECEIVED_AT_SHAPE.test(receivedAt) || !isValidReceivedAt(receivedAt)) return false;
  // Int64 LE of the ms (RowWriter.i64): 48 bits, then the sign extended.
  const ms = receivedAtMs(receivedAt);
  const slot = output + words[r + 1];
  mem.writeIntLE(ms, slot, 6);
  mem[slot + 6] = mem[slot + 7] = ms < 0 ? 0xff : 0;
  for (let h = 0, holes = words[r + 2]; h < holes; h++) {
    const e = r + 3 + h * 3;
    // Number() rounds decimal text exactly as JSON.parse does.
    const value = Number(src.toString('latin1', words[e + 1], words[e + 2]));
    if (!Number.isFinite(value)) return false;
    mem.writeDoubleLE(value, output + words[e]);
  }
  w.ensure(length);
  mem.copy(w.buf, w.pos, output, output + length);
  w.pos += length;
  return true;
}
