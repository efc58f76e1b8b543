import { createHmac } from 'node:crypto';
import { ERASED_TOKENS_SETTLE_MS } from '@chatlytics/clickhouse';
import type { Principal } from '../auth/principal.js';
import type { JobQueue } from '../jobs/queue.js';
import type { JobKind } from '../jobs/worker.js';
import type { ErasureRow, PrivacyRepository } from './repository.js';
import type { VisitorStore } from './visitor-store.js';

export const ERASURE_JOB = 'visitor-erasure';

/**
 * The audit's keyed hash of a token: HMAC-SHA256 under a key derived from the session secret,
 * so the audit proves which token was erased to someone who has it, and names it to nobody else.
 */
export function createTokenHasher(secret: string) {
  const key = createHmac('sha256', secret).update('chatlytics visitor erasure audit').digest();
  return (chatbotId: string, token: string) => createHmac('sha256', key).update(chatbotId).update('\0').update(token).digest('hex');
}

export interface ErasureDeps {
  privacy: PrivacyRepository;
  store: VisitorStore;
  jobs: Pick<JobQueue, 'enqueue'>;
  hashToken: (chatbotId: string, token: string) => string;
  clock: () => Date;
  /** After listing the token, before deleting ClickHouse rows (ERASED_TOKENS_SETTLE_MS); tests shorten it. */
  settleMs?: number;
}

/**
 * Erasing one visitor (README.md, "Personal data"): listed in ClickHouse's erased_tokens first (the
 * consumers drop its messages from their next read on), its PostgreSQL rows deleted with the
 * audit row in one transaction, then a job that, once the consumers have read the list, deletes
 * its ClickHouse rows and marks the receipt complete.
 */
export function createErasureService(deps: ErasureDeps) {
  const settleMs = deps.settleMs ?? ERASED_TOKENS_SETTLE_MS;
  return {
    async request(principal: Principal, chatbotId: string, token: string): Promise<ErasureRow> {
      await deps.store.markErased(chatbotId, token);
      const now = deps.clock();
      const row = await deps.privacy.eraseAndRecord({
        accountId: principal.accountId, chatbotId, token, tokenHmac: deps.hashToken(chatbotId, token), tokenDigest: deps.store.digest(chatbotId, token),
        userId: principal.userId, credentialId: principal.credentialId, at: now,
      });
      // The job's payload names the receipt only: no token in clear is stored anywhere.
      await deps.jobs.enqueue(ERASURE_JOB, { erasureId: row.id }, new Date(Date.now() + settleMs));
      return row;
    },

    /** The job: idempotent, so a retry after a failure half-way completes the erasure. */
    async run(erasureId: string): Promise<'complete' | 'unknown'> {
      const row = await deps.privacy.find(erasureId);
      if (!row) return 'unknown';
      if (row.status === 'complete') return 'complete';
      const token = await deps.store.tokenOf(row.chatbotId, row.tokenDigest);
      const removed = token ? await deps.store.erase(row.chatbotId, token, row.id) : { events: 0, tokenIds: 0, orders: 0 };
      await deps.privacy.complete(row.id, removed, deps.clock());
      return 'complete';
    },
  };
}

export type ErasureService = ReturnType<typeof createErasureService>;

/** The job kind: 5 attempts, 30 s × attempt apart (a ClickHouse that is away a few minutes). */
export const erasureJobKind = (service: ErasureService): JobKind => ({
  async handle(job) {
    const outcome = await service.run(String(job.payload.erasureId));
    return outcome === 'unknown' ? { outcome: 'discarded' } : { outcome: 'sent', payload: job.payload };
  },
  maxAttempts: 5,
  backoffMs: (attempt) => 30_000 * attempt,
  noun: 'visitor erasure',
});
