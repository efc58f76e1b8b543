/**
 * Less personal data to begin with (README.md, "Personal data"): a page URL or referrer is
 * stored without its query string and fragment, where shops and mail tools put e-mail
 * addresses, order numbers, reset and session tokens. Only the `utm_*` parameters survive:
 * the sources statistic reads them (`trafficSource`). Also dropped: `user:password@` before a
 * host, and a utm value holding an `@` (a mail tool that puts the subscriber's address in
 * `utm_content`).
 *
 * Works on the text, not through `new URL`, so a URL without a query keeps its exact bytes
 * (no added slash, no re-encoding) and a malformed or relative URL is cut the same way.
 */

const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i;

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return null; // a malformed escape: not a parameter we can vouch for
  }
}

function keptParameter(pair: string): boolean {
  const eq = pair.indexOf('=');
  const name = decode(eq < 0 ? pair : pair.slice(0, eq));
  if (name === null || !name.toLowerCase().startsWith('utm_')) return false;
  const value = decode(eq < 0 ? '' : pair.slice(eq + 1));
  return value !== null && !value.includes('@');
}

/** The URL without fragment, credentials and every query parameter but `utm_*`. */
export function stripPersonalUrl(url: string): string {
  const hash = url.indexOf('#');
  const noFragment = hash < 0 ? url : url.slice(0, hash);
  const q = noFragment.indexOf('?');
  const base = (q < 0 ? noFragment : noFragment.slice(0, q)).replace(USERINFO, '$1');
  if (q < 0) return base;
  const kept = noFragment.slice(q + 1).split('&').filter((pair) => pair !== '' && keptParameter(pair));
  return kept.length > 0 ? `${base}?${kept.join('&')}` : base;
}
