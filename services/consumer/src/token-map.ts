import type { TokenIdRow, TokenIdStore } from '@chatlytics/clickhouse';
import { contentToken } from './dedup-token.js';
import { retrying, type RetryContext } from './retry.js';
import type { Segment } from './segment.js';

/**
 * The new token ids of a flush, stored in `token_ids` before its rows (token-ids.ts in
 * @chatlytics/clickhouse says why). The stores of all flushes form one chain, in the order the
 * flushes were started: `token_ids` then always holds a prefix of every slot's numbering, which
 * is what another writer of the slot reads its top from.
 */
export function createTokenMap(deps: { store: TokenIdStore; retry: RetryContext; tokenPrefix: string }) {
  let tail: Promise<unknown> = Promise.resolve();

  async function store(segments: readonly Segment[]): Promise<void> {
    const rows = new Map<string, TokenIdRow>();
    for (const s of segments) for (const r of s.tokenIds?.fresh ?? []) rows.set(`${r.key}\n${r.token_id}`, r);
    if (rows.size === 0) return;
    const all = [...rows.values()];
    const token = contentToken(`${deps.tokenPrefix}:token_ids`, all.map((r) => `${r.chatbot_id}\n${r.token}\n${r.token_id}`));
    await retrying('insert into token_ids', deps.retry, () => deps.store.insert(all, { dedupToken: token }));
    for (const s of segments) if (s.tokenIds) s.tokenIds.allocator.confirm(s.tokenIds.fresh);
  }

  /** Called when a flush starts (its place in the chain is taken then); resolves once its ids are stored. */
  return function storeBefore(segments: readonly Segment[]): Promise<void> {
    const run = tail.then(() => store(segments));
    tail = run.catch(() => undefined);
    return run;
  };
}
