import { createHmac } from 'node:crypto';

/**
 * The client IP is personal data and is never stored: only a keyed hash (HMAC-SHA256) that
 * lets the data team count distinct clients. Keyed, not a plain hash, because the IPv4 space
 * is small enough to reverse an unkeyed hash by brute force. 128 bits of the digest are kept:
 * plenty to avoid collisions, half the column size.
 */
export function createClientHasher(secret: string | Buffer): (ip: string) => string {
  if (secret.length < 16) throw new Error('client hash secret must be at least 16 bytes');
  // One visitor sends many events from one address; an HMAC costs more than validating the
  // event, so recent results are remembered. Cleared wholesale when full: simpler than an LRU
  // and, at 10,000 addresses, still a hit for nearly every request of an active visitor.
  const cache = new Map<string, string>();
  return (ip: string) => {
    let hash = cache.get(ip);
    if (hash === undefined) {
      hash = createHmac('sha256', secret).update(ip).digest('hex').slice(0, 32);
      if (cache.size >= 10_000) cache.clear();
      cache.set(ip, hash);
    }
    return hash;
  };
}
