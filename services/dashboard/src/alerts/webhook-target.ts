import dns from 'node:dns';
import net from 'node:net';

/**
 * Where an alert's webhook may go (services/dashboard/README.md, "Webhook"; the SSRF rule).
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
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['100::', 64],
] as const) blocked.addSubnet(net6, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIpv4(ip: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(ip);
  if (!m) return null;
  if (m[1]) return m[1];
  const hi = parseInt(m[2], 16);
  const lo = parseInt(m[3], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether a webhook may connect to this IP address. */
export function isPublicAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return !blocked.check(ip, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(ip);
    if (v4) return isPublicAddress(v4);
    return !blocked.check(ip, 'ipv6');
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
