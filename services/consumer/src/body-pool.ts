/**
 * Reuses the big Buffers segment bodies are written into. Why: each backlog batch wrote its
 * ~25 MB of rows into a new Buffer, and V8 counts such external memory: about every 64 MB of
 * it starts a full (mark-compact) collection, so a fresh body per batch meant a full GC every
 * batch or two (bench:pipeline under --trace-gc). A body comes back only after ClickHouse
 * acknowledged its rows (writer.ts); nothing reads it after that — the insert has either
 * spooled it to a file or sent it as the request body by then.
 *
 * Bounded: at most MAX_POOLED buffers of at most MAX_POOLED_BYTES in all (a live stream's
 * batches are small; only a backlog fills the pool with big ones).
 */
const MAX_POOLED = 3;
const MAX_POOLED_BYTES = 128 * 1024 * 1024;
const pool: Buffer[] = [];

/** Sizes go up in powers of two from 64 KiB, so a body fits the next batches of about its size. */
function sizeFor(bytes: number): number {
  let size = 64 * 1024;
  while (size < bytes) size *= 2;
  return size;
}

/** A Buffer of at least `bytes` (its contents are garbage). */
export function takeBody(bytes: number): Buffer {
  const i = pool.findIndex((b) => b.length >= bytes);
  if (i >= 0) return pool.splice(i, 1)[0];
  return Buffer.allocUnsafeSlow(sizeFor(bytes));
}

/** Hands a body back once nothing reads it any more. */
export function returnBody(buf: Buffer): void {
  if (pool.includes(buf)) return;
  pool.push(buf);
  // Keep the largest: a backlog needs them, and small ones are cheap to allocate again.
  pool.sort((a, b) => b.length - a.length);
  while (pool.length > MAX_POOLED || pool.reduce((n, b) => n + b.length, 0) > MAX_POOLED_BYTES) pool.pop();
}
