const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/**
 * A UUID v7 (RFC 9562): 48 bits of Unix milliseconds, version 7, 74 random bits. Made at
 * track() time so a retried event keeps its id (the server deduplicates by it), and
 * time-ordered so the queue's keys sort oldest first. `counter` (12 bits) takes the place of
 * the first random bits so that ids made in one millisecond keep their order.
 */
export function uuidv7(nowMs: number, random: Uint8Array, counter = 0): string {
  const t = hex(nowMs, 12);
  let r = '';
  for (let i = 0; i < 10; i++) r += hex(random[i], 2);
  return `${t.slice(0, 8)}-${t.slice(8)}-7${hex(counter, 3)}-${hex(8 | (random[9] & 3), 1)}${r.slice(3, 6)}-${r.slice(6, 18)}`;
}


/**
 * A visitor token: 21 characters of [A-Za-z0-9_-] (126 random bits; 64 divides 256, so
 * `byte & 63` is uniform) and a last character '0' or '1' from one more random bit. The last
 * character is the A/B group (0 control, 1 test): a random base64url character there would put
 * 62 of 64 visitors in no group.
 */
export function newToken(random: Uint8Array): string {
  let token = '';
  for (let i = 0; i < 21; i++) {
    // base64url's alphabet by arithmetic: A-Z, a-z, 0-9, '-', '_' (a 64-character table costs more bytes).
    const c = random[i] & 63;
    token += String.fromCharCode(c < 26 ? c + 65 : c < 52 ? c + 71 : c < 62 ? c - 4 : c < 63 ? 45 : 95);
  }
  return token + (random[21] & 1);
}

export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;

export const abGroupOf = (abTest: boolean, token: string | null) =>
  !abTest || !token ? null : token.endsWith('0') ? 'control' : token.endsWith('1') ? 'test' : null;

const BASE_MS = 1000;
const CAP_MS = 300_000;
export const BACKOFF = { baseMs: BASE_MS, capMs: CAP_MS };

/**
 * Delay before retry number `attempt` (0-based): full jitter, a uniform draw in
 * [0, min(cap, base·2^attempt)], so clients that failed together do not come back together.
 * A Retry-After of the server is a floor: the wait is that plus the jitter (still capped),
 * so an outage that ends for everyone at once is not followed by a synchronised storm.
 */
export function retryDelay(attempt: number, retryAfterSeconds: number, random: number): number {
  const jitter = random * Math.min(CAP_MS, BASE_MS * 2 ** attempt);
  const floor = retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : 0;
  return Math.max(floor, Math.min(CAP_MS, floor + jitter));
}

/** Retry-After in seconds (the delta form; an HTTP date or garbage counts as none). */
export const parseRetryAfter = (value: string | null) => {
  const n = Number(value);
  return n > 0 && n < Infinity ? n : 0;
};
