import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { webhookDeliveries, type Database } from '@chatlytics/postgres';
import { sendWebhook, WebhookPermanentError, type WebhookRequest } from './webhook-send.js';

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Retries with backoff: 10 s × 2^(attempt − 1) after each failed attempt, 6 attempts in all (~5 minutes). */
export const WEBHOOK_QUEUE_DEFAULTS = { pollIntervalMs: 1_000, backoffBaseMs: 10_000, maxAttempts: 6, leaseMs: 60_000 } as const;

/** The durable webhook queue (table webhook_deliveries), claimed like email_jobs. */
export function createWebhookDeliveryRepository({ db }: { db: Database }) {
  return {
    /**
     * Take the oldest due delivery in one statement; SKIP LOCKED lets several dashboard processes
     * share the queue without taking the same row. A `running` row whose lease ran out belongs to
     * a worker that died: it is due again. The attempt is counted at the claim.
     */
    async claimNext(now: Date, leaseMs: number): Promise<WebhookDeliveryRow | null> {
      const due = db.select({ id: webhookDeliveries.id }).from(webhookDeliveries)
        .where(and(inArray(webhookDeliveries.status, ['pending', 'running']), lte(webhookDeliveries.nextAttemptAt, now)))
        .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.id))
        .limit(1)
        .for('update', { skipLocked: true });
      const [row] = await db.update(webhookDeliveries)
        .set({ status: 'running', attempts: sql`${webhookDeliveries.attempts} + 1`, nextAttemptAt: new Date(now.getTime() + leaseMs), updatedAt: now })
        .where(inArray(webhookDeliveries.id, due))
        .returning();
      return row ?? null;
    },
    async markSent(id: string, now: Date): Promise<void> {
      await db.update(webhookDeliveries).set({ status: 'sent', lastError: null, updatedAt: now }).where(eq(webhookDeliveries.id, id));
    },
    async retryAt(id: string, at: Date, error: string, now: Date): Promise<void> {
      await db.update(webhookDeliveries).set({ status: 'pending', nextAttemptAt: at, lastError: error, updatedAt: now }).where(eq(webhookDeliveries.id, id));
    },
    async markFailed(id: string, error: string, now: Date): Promise<void> {
      await db.update(webhookDeliveries).set({ status: 'failed', lastError: error, updatedAt: now }).where(eq(webhookDeliveries.id, id));
    },
    async find(id: string): Promise<WebhookDeliveryRow | null> {
      const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).limit(1);
      return row ?? null;
    },
  };
}
export type WebhookDeliveryRepository = ReturnType<typeof createWebhookDeliveryRepository>;

export interface WebhookWorkerOptions {
  deliveries: WebhookDeliveryRepository;
  log: FastifyBaseLogger;
  allowPrivate: boolean;
  pollIntervalMs?: number;
  backoffBaseMs?: number;
  maxAttempts?: number;
  leaseMs?: number;
  timeoutMs?: number;
  /** Tests replace the HTTP call. */
  send?: (req: WebhookRequest) => Promise<unknown>;
  clock?: () => Date;
}

const describe = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 1000);

/** Polls the queue and delivers; stop() waits for the delivery in hand. */
export function createWebhookWorker(opts: WebhookWorkerOptions) {
  const o = { ...WEBHOOK_QUEUE_DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) } as WebhookWorkerOptions & typeof WEBHOOK_QUEUE_DEFAULTS;
  const clock = opts.clock ?? (() => new Date());
  const send = opts.send ?? ((req: WebhookRequest) => sendWebhook(req, { allowPrivate: opts.allowPrivate, timeoutMs: opts.timeoutMs }));
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopping = false;

  async function handle(d: WebhookDeliveryRow): Promise<void> {
    // The URL's host is not logged: it may carry a token in its path, and the alert id names it.
    const context = { deliveryId: d.id, alertId: d.alertId, attempt: d.attempts };
    try {
      if (d.attempts > o.maxAttempts) throw new WebhookPermanentError(`abandoned by a worker after ${o.maxAttempts} attempts`);
      await send({ url: d.url, body: d.body, signature: d.signature });
      await o.deliveries.markSent(d.id, clock());
      opts.log.info(context, 'webhook delivered');
    } catch (err) {
      const error = describe(err);
      if (err instanceof WebhookPermanentError || d.attempts >= o.maxAttempts) {
        await o.deliveries.markFailed(d.id, error, clock());
        opts.log.error({ ...context, code: err instanceof WebhookPermanentError ? 'DASHBOARD_022' : 'DASHBOARD_021', err: error }, 'webhook delivery failed permanently');
      } else {
        const retryInMs = o.backoffBaseMs * 2 ** (d.attempts - 1);
        await o.deliveries.retryAt(d.id, new Date(clock().getTime() + retryInMs), error, clock());
        opts.log.warn({ ...context, code: 'DASHBOARD_021', err: error, retryInMs }, 'webhook delivery failed; will retry');
      }
    }
  }

  async function runDue(): Promise<number> {
    let handled = 0;
    while (!stopping) {
      const d = await o.deliveries.claimNext(clock(), o.leaseMs);
      if (!d) break;
      await handle(d);
      handled++;
    }
    return handled;
  }

  function schedule() {
    if (stopping) return;
    timer = setTimeout(() => {
      running = runDue().catch((err) => opts.log.warn({ err }, 'webhook queue poll failed; trying again')).finally(schedule);
    }, o.pollIntervalMs);
    timer.unref();
  }

  return {
    start: schedule,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running;
    },
    runDue,
  };
}
export type WebhookWorker = ReturnType<typeof createWebhookWorker>;
