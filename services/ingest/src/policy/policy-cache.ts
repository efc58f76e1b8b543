import type { Logger } from '@chatlytics/core';
import { compilePolicy, DEFAULT_CHATBOT_POLICY, type ChatbotPolicy, type ChatbotPolicyLoader, type ChatbotPolicySource } from './chatbot-policy.js';

export interface PolicyCacheOptions {
  load: ChatbotPolicyLoader;
  log: Pick<Logger, 'warn'>;
  /** How long a loaded policy (or an unknown chatbot) is served before it is read again. */
  ttlMs?: number;
  /** Chatbots remembered at most; the least recently used is forgotten first. */
  maxEntries?: number;
  /** After a failed read, how long the stale (or default) answer is served before the next try. */
  retryMs?: number;
  /**
   * A read not answered within this counts as failed: an unreachable server must not hold
   * tracking requests (pg waits for a connection without limit by default).
   */
  loadTimeoutMs?: number;
  now?: () => number;
  /** Called with each failed read (the ingest counts them in /metrics). */
  onLoadFailure?: () => void;
}

/** A change in the app reaches the tracking endpoint within this. */
export const POLICY_TTL_MS = 15_000;
export const POLICY_CACHE_MAX_ENTRIES = 10_000;
const RETRY_MS = 2_000;
const LOAD_TIMEOUT_MS = 1_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

interface Entry { policy: ChatbotPolicy; expires: number }

/**
 * The settings of the chatbots being tracked, read from the database at most once per TTL per
 * chatbot (concurrent misses share one read), so the hot path does not wait on the database:
 * an unknown chatbot is remembered as unknown too (negative entry), so a flood of made-up ids
 * costs one read each per TTL, bounded by the LRU size.
 *
 * A failed read never fails tracking: the last known policy keeps being served (retried after
 * `retryMs`), and a chatbot never read successfully gets the defaults (any origin, the
 * default cap, signatures not required) until the database answers again. Logged at warn,
 * at most once per retry interval.
 */
export function createCachedPolicySource(opts: PolicyCacheOptions): ChatbotPolicySource & { readonly size: number } {
  const ttlMs = opts.ttlMs ?? POLICY_TTL_MS;
  const maxEntries = opts.maxEntries ?? POLICY_CACHE_MAX_ENTRIES;
  const retryMs = opts.retryMs ?? RETRY_MS;
  const loadTimeoutMs = opts.loadTimeoutMs ?? LOAD_TIMEOUT_MS;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const loading = new Map<string, Promise<ChatbotPolicy>>();
  let lastWarned = -Infinity;

  function remember(id: string, policy: ChatbotPolicy, ttl: number): ChatbotPolicy {
    entries.delete(id);
    entries.set(id, { policy, expires: now() + ttl });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    return policy;
  }

  async function refresh(id: string, stale: ChatbotPolicy | undefined): Promise<ChatbotPolicy> {
    try {
      const row = await withTimeout(opts.load(id), loadTimeoutMs);
      return remember(id, row ? compilePolicy(row) : DEFAULT_CHATBOT_POLICY, ttlMs);
    } catch (err) {
      opts.onLoadFailure?.();
      if (now() - lastWarned >= retryMs) {
        lastWarned = now();
        opts.log.warn({ err, chatbotId: id, serving: stale ? 'last known' : 'defaults' }, 'chatbot settings unreadable: tracking goes on with the last known settings or the defaults');
      }
      return remember(id, stale ?? DEFAULT_CHATBOT_POLICY, retryMs);
    } finally {
      loading.delete(id);
    }
  }

  return {
    get size() { return entries.size; },
    policyOf(chatbotId: string): Promise<ChatbotPolicy> {
      const entry = entries.get(chatbotId);
      if (entry && entry.expires > now()) {
        // Touched: the map's order is the LRU order.
        entries.delete(chatbotId);
        entries.set(chatbotId, entry);
        return Promise.resolve(entry.policy);
      }
      let pending = loading.get(chatbotId);
      if (!pending) {
        pending = refresh(chatbotId, entry?.policy);
        loading.set(chatbotId, pending);
      }
      return pending;
    },
  };
}
