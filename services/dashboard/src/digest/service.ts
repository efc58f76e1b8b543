import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '@chatlytics/postgres';
import { createJobQueue } from '../jobs/queue.js';
import type { MailTransport } from '../mail/transport.js';
import type { JobHandler } from '../jobs/worker.js';
import { createUserRepository, type UserRow } from '../repositories/user-repository.js';
import type { DigestContentReader } from './content.js';
import { createDigestRepository } from './repository.js';
import { renderDigest } from './render.js';
import { dueWeek, sendTimeOf, utcDay, type DigestSchedule } from './schedule.js';
import type { UnsubscribeSigner } from './unsubscribe.js';

/** Kind of the digest's e-mail jobs. */
export const DIGEST_JOB = 'weekly_digest';
/** Users queued per transaction batch read; the loop continues until none is due. */
const BATCH = 200;

export interface DigestServiceDeps {
  db: Database;
  appUrl: string;
  schedule: DigestSchedule;
  content: DigestContentReader;
  signer: UnsubscribeSigner;
  transport: MailTransport;
  log: FastifyBaseLogger;
  /** "Now" of the schedule; tests move it. */
  clock: () => Date;
  /** "Now" of the job queue: real time, since the worker's timers are real. */
  queueClock: () => Date;
}

export function createDigestService(d: DigestServiceDeps) {
  const digests = createDigestRepository({ db: d.db });
  const users = createUserRepository({ db: d.db });

  /** RFC 2369 + RFC 8058: mail clients show an unsubscribe button that POSTs the link. */
  const headersFor = (url: string) => ({ 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });

  async function compose(user: UserRow, sendDay: string) {
    const unsubscribeUrl = d.signer.link(d.appUrl, user.id);
    const content = await d.content(user.accountId, sendDay);
    const mail = await renderDigest({ content, appUrl: d.appUrl, unsubscribeUrl });
    return { mail, content, headers: headersFor(unsubscribeUrl) };
  }

  /** The worker's half: figures are read when the job runs, for the days its week fixed. */
  const sendDigest: JobHandler = async (job) => {
    const userId = String(job.payload.userId);
    const sendDay = String(job.payload.sendDay);
    const user = await users.findById(userId);
    // Deleted, or unsubscribed between queueing and sending: nothing goes out.
    if (!user || !user.weeklyDigest) return { outcome: 'discarded' };
    const { mail, headers } = await compose(user, sendDay);
    await d.transport.send({ to: user.email, ...mail, headers, idempotencyKey: job.id });
    return { outcome: 'sent', payload: job.payload };
  };

  return {
    /**
     * Queues the current week's digest of every user who is due and not queued yet; the number
     * queued. Each user's claim (digest_sends) and mail job share a transaction, and the job is
     * enqueued only when this call's insert added the row: concurrent runs in several processes,
     * or a run repeated after a restart, queue each user's digest of a week once.
     */
    async queueDue(): Promise<number> {
      const now = d.clock();
      const due = dueWeek(now, d.schedule);
      if (!due) return 0;
      const sendDay = utcDay(sendTimeOf(due.weekStart, d.schedule));
      let queued = 0;
      for (;;) {
        const batch = await digests.dueUsers(due.weekStart, due.sendAt, BATCH);
        if (batch.length === 0) break;
        for (const { id } of batch) {
          const claimed = await d.db.transaction(async (tx) => {
            if (!(await createDigestRepository({ db: tx }).claimWeek(id, due.weekStart, now))) return false;
            await createJobQueue({ db: tx }).enqueue(DIGEST_JOB, { userId: id, weekStart: due.weekStart, sendDay }, d.queueClock());
            return true;
          });
          if (claimed) queued++;
        }
        if (batch.length < BATCH) break;
      }
      if (queued > 0) d.log.info({ weekStart: due.weekStart, queued }, 'weekly digests queued');
      return queued;
    },

    /**
     * `digest:send --email E`: this user's digest now, for the 7 days ending yesterday (UTC),
     * whether or not the switch is on; outside the weekly bookkeeping (digest_sends).
     */
    async sendNow(email: string) {
      const user = await users.findByEmail(email);
      if (!user) return null;
      const sendDay = utcDay(d.clock());
      const { mail, headers, content } = await compose(user, sendDay);
      await d.transport.send({ to: user.email, ...mail, headers, idempotencyKey: randomUUID() });
      return { to: user.email, subject: mail.subject, windows: content.windows, chatbots: content.chatbots.length, transport: d.transport.kind };
    },

    handlers: { [DIGEST_JOB]: sendDigest } as Record<string, JobHandler>,
  };
}
export type DigestService = ReturnType<typeof createDigestService>;
