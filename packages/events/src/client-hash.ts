import { createHmac } from 'node:crypto';
import { BoundedMemo } from './bounded-memo.js';

/**
 * The client IP is personal data and is never stored: only a keyed hash (HMAC-SHA256) that
 * lets the data team count distinct clients. Keyed, not a plain hash, because the IPv4 space
 * is small enough to reverse an unkeyed hash by brute force. 128 bits of the digest are kept:
 * plenty to avoid collisions, half the column size.
 */
export function createClientHasher(secret: string | Buffer): (ip: string) => string {
  if (secret.length < 16) throw new Error('client hash secret must be at least 16 bytes');
  // One visitor sends many events from one address; an HMAC costs more than validating the
  // event, so the last 10,000 addresses' hashes are remembered.
  const memo = new BoundedMemo((ip) => createHmac('sha256', secret).update(ip).digest('hex').slice(0, 32), 10_000);
  return (ip: string) => memo.get(ip);
}
