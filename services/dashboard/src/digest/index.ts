import type { Config } from '@chatlytics/core';
import type { Database } from '@chatlytics/postgres';
import type { FastifyBaseLogger } from 'fastify';
import type { MailTransport } from '../mail/transport.js';
import type { ChatbotRepository } from '../repositories/chatbot-repository.js';
import type { StatsService } from '../stats/run.js';
import { createDigestContent, type FiredAlertsSource } from './content.js';
import { createDigestService } from './service.js';
import { createUnsubscribeSigner } from './unsubscribe.js';

/** The digest's knobs in DashboardOptions; production uses the defaults. */
export interface DigestTuning {
  /** Between scheduler runs (default DEFAULT_DIGEST_INTERVAL_MS, 5 min); 0: no scheduler in this process (tests run it themselves). */
  intervalMs?: number;
  /**
   * The alerts of a chatbot that fired in a window, for the digest's "Alerts that fired"
   * section. Unset: the section is left out (services/dashboard/README.md "Weekly digest").
   */
  firedAlerts?: FiredAlertsSource;
  /** "Now" of the schedule (default: the dashboard's clock). */
  clock?: () => Date;
}

/** The digest service as dashboardApp and the CLI build it. */
export function buildDigestService(d: {
  config: Pick<Config, 'appUrl' | 'digest'>; db: Database; stats: StatsService; chatbots: ChatbotRepository; secret: string;
  transport: MailTransport; log: FastifyBaseLogger; clock: () => Date; firedAlerts?: FiredAlertsSource;
}) {
  return createDigestService({
    db: d.db, appUrl: d.config.appUrl, schedule: d.config.digest, transport: d.transport, log: d.log, clock: d.clock, queueClock: () => new Date(),
    signer: createUnsubscribeSigner(d.secret),
    content: createDigestContent({ stats: d.stats, chatbots: d.chatbots, firedAlerts: d.firedAlerts }),
  });
}

export { createDigestService, DIGEST_JOB, type DigestService } from './service.js';
export { createDigestContent, TOP_ITEMS, type DigestContent, type ChatbotDigest, type FiredAlert, type FiredAlertsSource } from './content.js';
export { createDigestRepository, type DigestRepository } from './repository.js';
export { createDigestScheduler, digestSchedulerPlugin, DIGEST_LOCK_KEY, DEFAULT_DIGEST_INTERVAL_MS } from './scheduler.js';
export { createUnsubscribeSigner, UNSUBSCRIBE_PATH, type UnsubscribeSigner } from './unsubscribe.js';
export { digestWindows, dueWeek, weekStartOf, sendTimeOf, type DigestSchedule, type DigestWindows } from './schedule.js';
export { renderDigest } from './render.js';
export { notificationRoutes, unsubscribeRoutes } from './routes.js';
