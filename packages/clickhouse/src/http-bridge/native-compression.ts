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
import { cityHash128 } from './cityhash.js';

const LZ4_METHOD = 0x82;
const HEADER = 9;
/**
 * ClickHouse's max_compress_block_size. A frame's checksum takes a few ms on the event loop; the
 * all-in-one's tracking routes get a turn between the frames of a large result.
 */
const FRAME_BYTES = 1024 * 1024;

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
