import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { SqlPrincipal } from './governor.js';

/**
 * The key a request carries, taken the ways ClickHouse clients send credentials: the HTTP
 * basic password (any user name: @clickhouse/client and JDBC always send one),
 * `X-ClickHouse-Key`, or `Authorization: Bearer <key>`. Never from the query string
 * (`?password=`), so a key cannot end up in access logs or browser history.
 */
export function presentedKey(req: FastifyRequest): string | undefined {
  const header = req.headers['x-clickhouse-key'];
  if (typeof header === 'string' && header !== '') return header;
  const auth = req.headers.authorization;
  if (typeof auth !== 'string') return undefined;
  const [scheme, value = ''] = auth.split(/\s+/, 2);
  if (/^bearer$/i.test(scheme)) return value || undefined;
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : undefined;
  }
  return undefined;
}

/** The principal of the bootstrap key (SQL_API_KEY) in quotas and the query log. */
export const BOOTSTRAP_KEY_NAME = 'bootstrap';

/**
 * Authentication of the data team's interface: the bootstrap key (compared in constant
 * time) or, through `lookup`, a named key. Either may be absent.
 */
export function sqlKeyAuth(opts: { bootstrapKey?: string; lookup?: (key: string) => Promise<SqlPrincipal | null> }) {
  // Comparing digests keeps the comparison constant-time even when lengths differ.
  const expected = opts.bootstrapKey ? digest(opts.bootstrapKey) : undefined;
  return async (req: FastifyRequest): Promise<SqlPrincipal | null> => {
    const key = presentedKey(req);
    if (key === undefined) return null;
    if (expected && timingSafeEqual(digest(key), expected)) return { name: BOOTSTRAP_KEY_NAME };
    return opts.lookup ? opts.lookup(key) : null;
  };
}

/** One fixed key (tests, and the bootstrap key alone). */
export function sqlApiKeyAuth(key: string) {
  if (key.length === 0) throw new Error('sqlApiKeyAuth needs a non-empty key');
  return sqlKeyAuth({ bootstrapKey: key });
}

const digest = (s: string) => createHash('sha256').update(s).digest();
