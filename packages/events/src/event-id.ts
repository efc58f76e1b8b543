import { randomFillSync } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';

// Same shape as the StoredEvent `format: 'uuid'` check, so a client id we accept is never
// refused later by the consumer's re-validation.
const UUID = /^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i;

/**
 * The nil and max UUIDs are syntactically valid but are what a buggy client sends for "no id";
 * accepting them would deduplicate all of that client's events into one.
 */
const DEGENERATE = new Set(['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']);

/** The client's `data.event_id`, lower-cased, when it is a usable UUID; else undefined. */
export function clientEventId(value: unknown): string | undefined {
  if (typeof value !== 'string' || !UUID.test(value)) return undefined;
  const id = value.toLowerCase();
  return DEGENERATE.has(id) ? undefined : id;
}

// Random bytes are drawn 4 KiB at a time: one getRandomValues call per id (what the `uuid`
// package does) costs as much as parsing and validating the whole event on the hot path.
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolOffset = POOL_BYTES;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * A fresh, time-ordered id (UUID v7, RFC 9562): 48 bits of Unix milliseconds, then 74 random
 * bits. ClickHouse keeps rows of one ingest moment close together. No intra-millisecond counter:
 * ids only need to be unique (74 random bits), and order within a millisecond carries no meaning.
 */
export function newEventId(nowMs: number = Date.now()): string {
  if (poolOffset + 10 > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const r = poolOffset;
  poolOffset += 10;
  const hi = Math.floor(nowMs / 0x1000000); // top 24 of the 48 timestamp bits
  const lo = nowMs % 0x1000000; // bottom 24
  return HEX[(hi >>> 16) & 0xff] + HEX[(hi >>> 8) & 0xff] + HEX[hi & 0xff] + HEX[(lo >>> 16) & 0xff]
    + '-' + HEX[(lo >>> 8) & 0xff] + HEX[lo & 0xff]
    + '-' + HEX[0x70 | (pool[r] & 0x0f)] + HEX[pool[r + 1]]
    + '-' + HEX[0x80 | (pool[r + 2] & 0x3f)] + HEX[pool[r + 3]]
    + '-' + HEX[pool[r + 4]] + HEX[pool[r + 5]] + HEX[pool[r + 6]] + HEX[pool[r + 7]] + HEX[pool[r + 8]] + HEX[pool[r + 9]];
}

/** Fixed namespace of Chatlytics' deterministic ids (a random v4 chosen once, never to change). */
const EVENT_ID_NAMESPACE = '8c0b9d55-3f33-4f2a-9a55-6f1f9f0a7c11';

/**
 * A deterministic id (UUID v5) for events that must keep the same id on every run, e.g. a
 * backfill import of events without `data.event_id` (see the tracking endpoint rules in services/ingest/README.md): same seed, same id.
 */
export function eventIdFromSeed(seed: string): string {
  return uuidv5(seed, EVENT_ID_NAMESPACE);
}
