import { isbot } from 'isbot';
import { BoundedMemo } from './bounded-memo.js';

/**
 * Why a memo: isbot's one large regular expression costs about 1 µs per User-Agent (the
 * largest single item of normalizeEvent), while a shop's visitors send few distinct
 * User-Agents, each on every event. 2,000 entries of at most 1,024 characters: a few MB.
 */
const memo = new BoundedMemo(isbot, 2_000);

/**
 * True when a User-Agent is a known crawler, monitor, preview fetcher, headless browser or
 * HTTP library, by the `isbot` package's list (kept up to date upstream, so bumping the
 * dependency is how the list is maintained). An empty User-Agent is not called a bot: a
 * shop's own server sending events without one is an integration, not a crawler.
 */
export function isBotUserAgent(userAgent: string): boolean {
  return userAgent !== '' && memo.get(userAgent);
}

/** For tests: how many User-Agents are remembered. */
export const botMemoSize = (): number => memo.size;
