import type { FastifyBaseLogger } from 'fastify';
import type { JobQueue } from '../jobs/queue.js';
import { createJobWorker, type JobKind } from '../jobs/worker.js';
import { sendWebhook, type WebhookRequest } from './webhook-send.js';

/** Kind of the webhook deliveries in the job queue: one per transition of an alert with a webhook_url. */
export const WEBHOOK_JOB = 'webhook';

/** A delivery's payload: body and signature fixed when the transition was recorded. */
export interface WebhookPayload extends WebhookRequest { alertId: string; transitionId: string }

/** Retries with backoff: 10 s × 2^(attempt − 1) after each failed attempt, 6 attempts in all (~5 minutes). */
export const WEBHOOK_RETRY = { backoffBaseMs: 10_000, maxAttempts: 6 } as const;

export interface WebhookKindOptions {
  allowPrivate: boolean;
  backoffBaseMs?: number;
  maxAttempts?: number;
  timeoutMs?: number;
  /** Tests replace the HTTP call. */
  send?: (req: WebhookRequest) => Promise<unknown>;
}

/** The webhook kind of the job queue: one signed POST per job (webhook-send.ts), retried by WEBHOOK_RETRY. */
export function webhookKind(o: WebhookKindOptions): JobKind {
  const send = o.send ?? ((req: WebhookRequest) => sendWebhook(req, { allowPrivate: o.allowPrivate, timeoutMs: o.timeoutMs }));
  const base = o.backoffBaseMs ?? WEBHOOK_RETRY.backoffBaseMs;
  return {
    noun: 'webhook delivery',
    maxAttempts: o.maxAttempts ?? WEBHOOK_RETRY.maxAttempts,
    backoffMs: (attempt) => base * 2 ** (attempt - 1),
    async handle(job) {
      // The URL's host is not logged: it may carry a token in its path, and the alert id names it.
      const { url, body, signature } = job.payload as unknown as WebhookPayload;
      await send({ url, body, signature });
      return { outcome: 'sent', payload: job.payload };
    },
  };
}

/**
 * A worker of the webhook kind alone, for a process that sends webhooks but no e-mail. Its lease
 * is one minute: twelve times a delivery's 5-second timeout.
 */
export function createWebhookWorker(o: WebhookKindOptions & {
  deliveries: JobQueue; log: FastifyBaseLogger; pollIntervalMs?: number; leaseMs?: number; clock?: () => Date;
}) {
  return createJobWorker({
    jobs: o.deliveries, handlers: { [WEBHOOK_JOB]: webhookKind(o) }, log: o.log, pollIntervalMs: o.pollIntervalMs, leaseMs: o.leaseMs ?? 60_000, clock: o.clock,
  });
}
