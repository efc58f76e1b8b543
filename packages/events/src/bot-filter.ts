import { isbot } from 'isbot';

/**
 * Why a memo: isbot's one large regular expression costs about 1 µs per User-Agent (the
 * largest single item of normalizeEvent), while a shop's visitors send few distinct
 * User-Agents, each on every event. Cleared wholesale when full (as the client-IP hash cache):
 * a flood of distinct values costs what no memo would, and 2,000 entries of at most 1,024
 * characters bound it to a few MB.
 */
const MEMO_ENTRIES = 2_000;
const memo = new Map<string, boolean>();

/**
 * True when a User-Agent is a known crawler, monitor, preview fetcher, headless browser or
 * HTTP library, by the `isbot` package's list (kept up to date upstream, so bumping the
 * dependency is how the list is maintained). An empty User-Agent is not called a bot: a
 * shop's own server sending events without one is an integration, not a crawler.
 */
export function isBotUserAgent(userAgent: string): boolean {
  if (userAgent === '') return false;
  let bot = memo.get(userAgent);
  if (bot === undefined) {
    bot = isbot(userAgent);
    if (memo.size >= MEMO_ENTRIES) memo.clear();
    memo.set(userAgent, bot);
  }
  return bot;
}

/** For tests: how many User-Agents are remembered. */
export const botMemoSize = (): number => memo.size;
