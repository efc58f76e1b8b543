import dns from 'node:dns';
import net from 'node:net';

/**
 * Where an alert's webhook may go (services/dashboard/docs/api.md, "Webhook"; the SSRF rule).
 * The URL is a user's input and the request leaves from inside the operator's network, so
 * without this rule a webhook could reach the cloud metadata service (169.254.169.254),
 * the database, or any internal admin port, and its retries would probe them. Only http(s)
 * to public addresses: loopback, private, link-local, unique-local, CGNAT, multicast,
 * reserved and unspecified addresses are refused, unless ALERT_WEBHOOK_ALLOW_PRIVATE=true.
 */
const blocked = new net.BlockList();
for (const [net4, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net4, prefix, 'ipv4');
for (const [net6, prefix] of [
  // Unspecified, loopback and IPv4-compatible (::a.b.c.d, deprecated: never a public peer).
  ['::', 96],
  ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['3fff::', 20], ['100::', 64],
  // IETF protocol assignments: Teredo 2001::/32 (a tunnel to whatever its embedded addresses
  // are), benchmarking, ORCHID; and local-use NAT64 64:ff9b:1::/48.
  ['2001::', 23], ['64:ff9b:1::', 48],
] as const) blocked.addSubnet(net6, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address (a trailing dotted IPv4 part allowed); null if it is none. */
function ipv6Bytes(ip: string): number[] | null {
  if (net.isIP(ip) !== 6) return null;
  let text = ip.replace(/%.*$/, '');
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((g) => { const n = parseInt(g, 16); return [n >> 8, n & 255]; });
}

const ipv4Of = (bytes: number[], at: number) => bytes.slice(at, at + 4).join('.');
const startsWith = (bytes: number[], prefix: number[]) => prefix.every((b, i) => bytes[i] === b);

/**
 * The IPv4 address an IPv6 address carries, where the network delivers to it: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4
 * (2002:aabb:ccdd::/48).
 */
function embeddedIpv4(ip: string): string | null {
  const b = ipv6Bytes(ip);
  if (!b) return null;
  const zeros = (n: number) => Array(n).fill(0) as number[];
  if (startsWith(b, [...zeros(10), 255, 255])) return ipv4Of(b, 12);
  if (startsWith(b, [...zeros(8), 255, 255, 0, 0])) return ipv4Of(b, 12);
  if (startsWith(b, [0, 0x64, 0xff, 0x9b, ...zeros(8)])) return ipv4Of(b, 12);
  if (startsWith(b, [0x20, 0x02])) return ipv4Of(b, 2);
  return null;
}

/** Whether a webhook may connect to this IP address. */
export function isPublicAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return !blocked.check(ip, 'ipv4');
  if (family === 6) {
    if (blocked.check(ip, 'ipv6')) return false;
    const v4 = embeddedIpv4(ip);
    return v4 ? isPublicAddress(v4) : true;
  }
  return false;
}

export class WebhookTargetError extends Error {
  override name = 'WebhookTargetError';
}

/** A URL's host without IPv6 brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * The syntactic check, at creation and before each delivery: an http(s) URL without
 * credentials, whose host is not a literal forbidden address or `localhost`. Names that
 * resolve to such addresses are caught when connecting (guardedLookup).
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): { ok: true; url: URL } | { ok: false; message: string } {
  let url: URL;
  try { url = new URL(raw); } catch { return { ok: false, message: 'The webhook URL must be an absolute http(s) URL.' }; }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, message: 'The webhook URL must use http or https.' };
  if (url.username || url.password) return { ok: false, message: 'The webhook URL must not carry credentials.' };
  if (allowPrivate) return { ok: true, url };
  const host = hostOf(url).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || (net.isIP(host) && !isPublicAddress(host))) {
    return { ok: false, message: 'The webhook URL must not point to a loopback or private address.' };
  }
  return { ok: true, url };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * The socket's `lookup`: resolves every address of the name and refuses the connection if any
 * is forbidden, then connects to exactly the addresses it checked. Checking here, not in a
 * separate look-up before the request, leaves no gap in which the name could be re-pointed
 * to an internal address (DNS rebinding).
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad || addresses.length === 0) {
      return callback(Object.assign(new WebhookTargetError(`webhook host ${hostname} resolves to a loopback or private address`), { code: 'EWEBHOOKTARGET' }), []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

/** The host literal of a URL, checked the same way: a literal IP never goes through `lookup`. */
export function literalHostAllowed(url: URL): boolean {
  const host = hostOf(url);
  return !net.isIP(host) || isPublicAddress(host);
}
