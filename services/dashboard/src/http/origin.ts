import type { FastifyRequest } from 'fastify';

/**
 * Which origin a browser request of this site comes from (see the origin rule in
 * services/dashboard/docs/api.md). With APP_URL set, only APP_URL's origin. Without it (a local
 * start), the loopback address the browser used: `npm start` prints http://127.0.0.1:PORT while
 * the default APP_URL says localhost, and both are this machine. Only loopback names count, so
 * a rebinding host name (evil.example resolving to 127.0.0.1) is never its own origin.
 */
export interface OriginPolicy {
  appOrigin: string;
  /** APP_URL was not set: a loopback Host is its own origin. */
  loopbackSameOrigin: boolean;
}

const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?$/i;

/** The origin this request's page belongs to under `policy`. */
export function siteOrigin(req: FastifyRequest, policy: OriginPolicy): string {
  const host = req.headers.host ?? '';
  if (policy.loopbackSameOrigin && LOOPBACK_HOST.test(host)) return `http://${host.toLowerCase()}`;
  return policy.appOrigin;
}

/**
 * True when the request carries an Origin header naming another origin than APP_URL's
 * (see the authentication rules in services/dashboard/docs/api.md). Browsers send Origin on every cross-site POST; a request without one
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

/** Characters a browser drops from a URL (tab, CR, LF) or reads as a slash (backslash), and other controls. */
const UNSAFE_IN_PATH = /[\u0000-\u001f\u007f\\]/;
const PROBE_ORIGIN = 'http://local.invalid';

/**
 * A body-supplied "go here next" value: only a path of this site is honoured, never one a
 * browser could read as another host. Browsers strip tab, CR and LF and treat `\` as `/`, so
 * `/\t/evil.example/` and `/\\evil.example` are `//evil.example`; these are refused raw and
 * percent-encoded. The value is resolved against a probe origin: it must stay on that origin
 * with a path starting with exactly one `/`, and the normalised path, query and fragment are
 * returned.
 */
export function localPath(value: unknown): string | null {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return null;
  }
  if (UNSAFE_IN_PATH.test(value) || UNSAFE_IN_PATH.test(decoded) || decoded.startsWith('//')) return null;
  let url: URL;
  try {
    url = new URL(value, PROBE_ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== PROBE_ORIGIN) return null;
  const path = url.pathname + url.search + url.hash;
  return path.startsWith('/') && !path.startsWith('//') ? path : null;
}

/** Whether the client wants JSON rather than a redirect (see the response and error rules in services/dashboard/docs/api.md: Accept or a JSON body). */
export function wantsJson(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  const contentType = req.headers['content-type'] ?? '';
  return accept.includes('application/json') || contentType.includes('application/json');
}
