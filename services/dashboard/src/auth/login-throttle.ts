import { isIPv6 } from 'node:net';
import { sha256Hex } from '../crypto/credentials.js';
import type { CountedAttempt, LoginFailureRepository } from '../repositories/login-failure-repository.js';
import { normalizeEmail } from '../repositories/user-repository.js';

/**
 * The log-in throttle of POST /login and POST /api/auth/tokens (OWASP authentication cheat
 * sheet; numbers in services/dashboard/docs/api.md). Every attempt is counted before its password
 * is checked, per account (the normalised e-mail, whether or not it has an account, so the
 * answers cannot tell), per account and client network, and per client network (an IPv4
 * address, an IPv6 /64); a successful log-in takes its attempt back and clears its account and
 * network pair. An attempt is refused (429) when, counting the attempts before it:
 * - its account and network pair has 5 or more: locked 1, 2, 4, 8, then 15 minutes after the last;
 * - its network has 50 or more: locked 15 minutes after the last;
 * - its account has 20 or more from all networks and this network has 2 or more on it: locked
 *   15 minutes after the last. A network that has not failed on the account may still try, so the
 *   owner logs in from elsewhere while an attacker is locked out.
 * A count is forgotten an hour after its last attempt. The counters live in PostgreSQL
 * (several dashboard processes share them, restarts keep them); keys are SHA-256 digests, so the
 * table holds neither e-mails nor addresses.
 */
export const THROTTLE = {
  forgetAfterMs: 60 * 60_000,
  pairFree: 5,
  pairFirstLockMs: 60_000,
  maxLockMs: 15 * 60_000,
  networkLimit: 50,
  accountLimit: 20,
  /** Under the account-wide lock, a network with fewer failures on the account may still try. */
  accountLockFromPairFailures: 2,
  pruneEveryMs: 5 * 60_000,
} as const;

/** The network a client address stands for: IPv4 as is (also IPv4-mapped IPv6), IPv6 by its /64. */
export function clientNetwork(ip: string): string {
  const address = ip.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  // An embedded IPv4 tail (x::1.2.3.4) lies beyond the /64: only the first four groups matter.
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.padStart(4, '0')).join(':')}::/64`;
}

/** How long the lock of a pair that had `failures` attempts lasts: doubling from a minute, at most 15. */
const pairLockMs = (failures: number) =>
  Math.min(THROTTLE.maxLockMs, THROTTLE.pairFirstLockMs * 2 ** (failures - THROTTLE.pairFree));

export function createLoginThrottle(deps: { failures: LoginFailureRepository; clock: () => Date }) {
  let lastPrune = 0;
  const keysOf = (email: string, ip: string) => {
    const account = sha256Hex(normalizeEmail(email));
    const network = clientNetwork(ip);
    return { account: `a:${account}`, pair: `p:${sha256Hex(`${account}|${network}`)}`, network: `n:${sha256Hex(network)}` };
  };

  return {
    /**
     * Counts the attempt; the seconds to wait when it is refused, null when its password may be
     * checked. Refused attempts count too: hammering a lock only prolongs it for that network.
     */
    async attempt(email: string, ip: string): Promise<number | null> {
      const now = deps.clock();
      const forgetBefore = new Date(now.getTime() - THROTTLE.forgetAfterMs);
      if (now.getTime() - lastPrune >= THROTTLE.pruneEveryMs) {
        lastPrune = now.getTime();
        await deps.failures.prune(forgetBefore);
      }
      const keys = keysOf(email, ip);
      const rows = await deps.failures.count([keys.account, keys.pair, keys.network], now, forgetBefore);
      const get = (key: string): CountedAttempt => rows.find((r) => r.key === key) ?? { key, before: 0, lastFailureAt: null };
      const [account, pair, network] = [get(keys.account), get(keys.pair), get(keys.network)];
      const locks: number[] = [];
      const lockedUntil = (c: CountedAttempt, ms: number) => c.lastFailureAt && locks.push(c.lastFailureAt.getTime() + ms);
      if (pair.before >= THROTTLE.pairFree) lockedUntil(pair, pairLockMs(pair.before));
      if (network.before >= THROTTLE.networkLimit) lockedUntil(network, THROTTLE.maxLockMs);
      if (account.before >= THROTTLE.accountLimit && pair.before >= THROTTLE.accountLockFromPairFailures) lockedUntil(account, THROTTLE.maxLockMs);
      const until = Math.max(0, ...locks);
      return until > now.getTime() ? Math.max(1, Math.ceil((until - now.getTime()) / 1000)) : null;
    },

    /** The password matched: the attempt is not a failure, and this network's record on the account is cleared. */
    async succeeded(email: string, ip: string): Promise<void> {
      const keys = keysOf(email, ip);
      await deps.failures.succeeded([keys.account, keys.network], [keys.pair]);
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
