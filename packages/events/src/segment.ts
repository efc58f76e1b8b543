/**
 * Where a visitor came from and on what device (services/ingest/README.md, "Traffic source and
 * device"): derived once at ingest, so that every statistic groups and filters stored text.
 * Pure functions of the page URL, `document.referrer` and the User-Agent.
 */
export interface Segment {
  /** utm_source, else the referrer's host without `www.`, else `direct`. */
  source: string;
  utm_medium: string;
  utm_campaign: string;
  device: Device;
}

export type Device = 'desktop' | 'mobile' | 'tablet';

/**
 * Stored values are cut to this many characters: each is a filter value of the statistics API
 * (whose parameters have the same bound), and a campaign name longer than that is noise.
 */
export const SEGMENT_VALUE_MAX_LENGTH = 255;
export const DIRECT_SOURCE = 'direct';

const clip = (s: string) => s.trim().slice(0, SEGMENT_VALUE_MAX_LENGTH);

function parseUrl(text: string | undefined): URL | null {
  if (!text) return null;
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** The referrer's host without a leading `www.`; '' for no referrer, or one that is not an http(s) URL. */
export function referrerHost(referrer: string | undefined): string {
  const url = parseUrl(referrer);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return '';
  return url.hostname.replace(/^www\./, '');
}

/** source, utm_medium and utm_campaign of a page view. */
export function trafficSource(pageUrl: string | undefined, referrer: string | undefined): Omit<Segment, 'device'> {
  const params = parseUrl(pageUrl)?.searchParams;
  const utm = (name: string) => clip(params?.get(name) ?? '');
  const source = utm('utm_source') || clip(referrerHost(referrer)) || DIRECT_SOURCE;
  return { source, utm_medium: utm('utm_medium'), utm_campaign: utm('utm_campaign') };
}

// Tablets first: their User-Agents often also say "Mobile" (Kindle, some Android tablets) or
// look like a desktop's (iPadOS) only when they do not say "iPad"; an Android device without
// "Mobile" is a tablet by Google's own convention for its browsers.
const TABLET = /iPad|Tablet|PlayBook|Silk\/|Kindle|Nexus (7|9|10)\b|SM-T\d|Android(?!.*Mobile)/i;
const MOBILE = /Mobi|iPhone|iPod|Android|BlackBerry|BB10|IEMobile|Windows Phone|Opera Mini|webOS/i;

/** `tablet`, `mobile` or `desktop` (also for an empty or unknown User-Agent). */
export function deviceOf(userAgent: string): Device {
  if (TABLET.test(userAgent)) return 'tablet';
  if (MOBILE.test(userAgent)) return 'mobile';
  return 'desktop';
}
