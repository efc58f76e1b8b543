import type { FastifyRequest } from 'fastify';

/**
 * True when the request carries an Origin header naming another origin than APP_URL's
 * (see the authentication rules in services/dashboard/README.md). Browsers send Origin on every cross-site POST; a request without one
 * (curl, same-origin navigation in old browsers) is not a cross-site form post.
 */
export function isCrossOrigin(req: FastifyRequest, appOrigin: string): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  return origin !== appOrigin;
}

/**
 * A same-origin path to send a browser back to, from the Referer; never another site
 * (an open redirect) and never a protocol-relative `//host` path.
 */
export function sameOriginPath(url: string | undefined, appOrigin: string): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url, appOrigin);
    if (parsed.origin !== appOrigin) return null;
    const pathAndQuery = parsed.pathname + parsed.search;
    return pathAndQuery.startsWith('//') ? null : pathAndQuery;
  } catch {
    return null;
  }
}

/** A body-supplied "go here next" value: only a local absolute path is honoured. */
export function localPath(value: unknown): string | null {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return null;
  return value;
}

/** Whether the client wants JSON rather than a redirect (see the response and error rules in services/dashboard/README.md: Accept or a JSON body). */
export function wantsJson(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  const contentType = req.headers['content-type'] ?? '';
  return accept.includes('application/json') || contentType.includes('application/json');
}
