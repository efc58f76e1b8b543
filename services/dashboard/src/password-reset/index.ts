import type { FastifyPluginAsync } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { DashboardDeps } from '../deps.js';
import type { MailTransport } from '../mail/transport.js';
import { createRouteLimiter } from './rate-limit.js';
import { passwordResetRoutes } from './routes.js';
import type { PasswordResetService } from './service.js';

/** Knobs of the flow and of the e-mail it sends; production uses the defaults, tests shorten the waits. */
export interface PasswordResetTuning {
  mail?: {
    /** Default: Resend with config.mail.resendApiKey, else the outbox in DATA_DIR/mail-outbox. */
    transport?: MailTransport;
    templatesDir?: string;
    /** False: no job worker in this process (another process sends). */
    worker?: boolean;
    /** The job worker's poll interval and lease (jobs/worker.ts). */
    pollIntervalMs?: number;
    leaseMs?: number;
    /** The e-mail kinds' retries (jobs/worker.ts MAIL_RETRY: 3 attempts, 30 s apart). */
    retryBackoffMs?: number;
    maxAttempts?: number;
  };
  /** Per the password reset rules in services/dashboard/README.md: 5 a minute for both link requests, 10 for resets; per client IP and per e-mail. */
  rateLimits?: { requestsPerMinute?: number; resetsPerMinute?: number };
}

export interface PasswordResetOptions {
  deps: DashboardDeps;
  service: PasswordResetService;
  rateLimits?: PasswordResetTuning['rateLimits'];
}

/**
 * The password reset flow's routes (see the password reset rules and e-mail rules in
 * services/dashboard/README.md), registered by dashboardApp (whose auth hook, validator and error
 * handler they use). Its e-mails are jobs the app's job worker sends.
 */
export const passwordResetApp: FastifyPluginAsync<PasswordResetOptions> = async (app, { deps, service, rateLimits }) => {
  // Local to this plugin: no global limit, only the counters the routes ask for.
  await app.register(rateLimit, { global: false });
  // One pair of counters per route: each route has its own budget (the password reset rules in services/dashboard/README.md list them separately).
  const requestsPerMinute = rateLimits?.requestsPerMinute ?? 5;
  const limiters = {
    forgot: createRouteLimiter(app, requestsPerMinute),
    send: createRouteLimiter(app, requestsPerMinute),
    reset: createRouteLimiter(app, rateLimits?.resetsPerMinute ?? 10),
  };
  await app.register(passwordResetRoutes, { deps, service, limiters });
};

export { createPasswordResetService, RESET_LINK_JOB, PASSWORD_CHANGED_JOB, type PasswordResetService } from './service.js';
export { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH, newPasswordErrors } from '../auth/password-rules.js';
export { createTokenSealer, newResetToken, tokenMatches, type TokenSealer } from './tokens.js';
