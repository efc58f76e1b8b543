import { isbot } from 'isbot';

/**
 * True when a User-Agent is a known crawler, monitor, preview fetcher, headless browser or
 * HTTP library, by the `isbot` package's list (kept up to date upstream, so bumping the
 * dependency is how the list is maintained). An empty User-Agent is not called a bot: a
 * shop's own server sending events without one is an integration, not a crawler.
 */
export function isBotUserAgent(userAgent: string): boolean {
  return userAgent !== '' && isbot(userAgent);
}
