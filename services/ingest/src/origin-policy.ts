/**
 * Which browser origins may call the tracking endpoints (ALLOWED_ORIGINS, the configuration table in README.md).
 *
 * Entry forms, compared case-insensitively:
 * - `*`: every origin (also what an unset ALLOWED_ORIGINS means);
 * - `https://shop.test` (with scheme): exactly that origin; a port must match too;
 * - `shop.test` / `localhost:5173` (no scheme): that host (and port) over http or https;
 * - `*.shop.test` or `https://*.shop.test`: any subdomain, at any depth, of shop.test,
 *   but not shop.test itself (list it separately).
 * A host entry without a port matches only the scheme's default port, as browsers omit it.
 * Requests without an Origin header (servers, curl, same-origin GETs) are not browser
 * cross-origin calls and are allowed: the allowlist is a browser-side guard, not authentication.
 */
export interface OriginPolicy {
  /** True when no allowlist is configured (or it contains `*`): CORS answers `*`. */
  readonly allowsAll: boolean;
  isAllowed(origin: string): boolean;
}

interface Suffix { scheme?: string; suffix: string }

function parseOrigin(origin: string): { scheme: string; host: string } | undefined {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#@\s]+)\/?$/i.exec(origin.trim());
  return m ? { scheme: m[1].toLowerCase(), host: m[2].toLowerCase() } : undefined;
}

export function createOriginPolicy(allowedOrigins?: readonly string[]): OriginPolicy {
  const entries = (allowedOrigins ?? []).map((e) => e.trim().toLowerCase()).filter(Boolean);
  if (entries.length === 0 || entries.includes('*')) return { allowsAll: true, isAllowed: () => true };

  const origins = new Set<string>();
  const hosts = new Set<string>();
  const suffixes: Suffix[] = [];
  for (const entry of entries) {
    const withScheme = parseOrigin(entry);
    const scheme = withScheme?.scheme;
    const host = withScheme ? withScheme.host : entry.replace(/\/+$/, '');
    if (host.startsWith('*.')) suffixes.push({ scheme, suffix: host.slice(1) });
    else if (scheme) origins.add(`${scheme}://${host}`);
    else hosts.add(host);
  }

  return {
    allowsAll: false,
    isAllowed(origin: string): boolean {
      // Origin "null" (sandboxed iframes, file://) and garbage parse to undefined: refused.
      const o = parseOrigin(origin);
      if (!o || (o.scheme !== 'http' && o.scheme !== 'https')) return false;
      if (origins.has(`${o.scheme}://${o.host}`) || hosts.has(o.host)) return true;
      return suffixes.some((s) => (s.scheme === undefined || s.scheme === o.scheme) && o.host.endsWith(s.suffix) && o.host.length > s.suffix.length);
    },
  };
}
