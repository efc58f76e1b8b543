import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/**
 * Accepts the SQL API key the ways ClickHouse clients send credentials: as the HTTP basic
 * password (any user name: @clickhouse/client always sends one), as `X-ClickHouse-Key`,
 * or as `Authorization: Bearer <key>`. Never from the query string (`?password=`), so the
 * key cannot end up in access logs or browser history.
 */
export function sqlApiKeyAuth(key: string): (req: FastifyRequest) => boolean {
  if (key.length === 0) throw new Error('sqlApiKeyAuth needs a non-empty key');
  // Comparing digests keeps the comparison constant-time even when lengths differ.
  const expected = digest(key);
  const matches = (candidate: string | undefined) =>
    candidate !== undefined && candidate !== '' && timingSafeEqual(digest(candidate), expected);
  return (req) => {
    const header = req.headers['x-clickhouse-key'];
    if (typeof header === 'string' && matches(header)) return true;
    const auth = req.headers.authorization;
    if (typeof auth !== 'string') return false;
    const [scheme, value = ''] = auth.split(/\s+/, 2);
    if (/^bearer$/i.test(scheme)) return matches(value);
    if (/^basic$/i.test(scheme)) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      return colon >= 0 && matches(decoded.slice(colon + 1));
    }
    return false;
  };
}

const digest = (s: string) => createHash('sha256').update(s).digest();
