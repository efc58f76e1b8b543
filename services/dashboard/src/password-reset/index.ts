import type { FastifyPluginAsync } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Database } from '@chatlytics/postgres';
import type { DashboardDeps } from '../deps.js';
import { createEmailJobRepository } from '../mail/job-repository.js';
import { loadMailTemplates, TEMPLATES_DIR } from '../mail/templates.js';
import { createMailTransport, type MailTransport } from '../mail/transport.js';
import type { MailTemplates } from '../mail/templates.js';
import { createMailWorker, type JobHandler, type MailWorkerOptions } from '../mail/worker.js';
import { createRouteLimiter } from './rate-limit.js';
import { changePasswordRoute } from './change-route.js';
import { passwordResetRoutes } from './routes.js';
import { createPasswordResetService } from './service.js';
import { createTokenSealer } from './tokens.js';

/** Knobs of the flow; production uses the defaults, tests shorten the waits. */
export interface PasswordResetTuning {
  mail?: Pick<MailWorkerOptions, 'pollIntervalMs' | 'retryBackoffMs' | 'maxAttempts' | 'leaseMs'> & {
    /** Default: Resend with config.mail.resendApiKey, else the outbox in DATA_DIR/mail-outbox. */
    transport?: MailTransport;
    templatesDir?: string;
    /** False: no worker loop in this process (another process sends). */
    worker?: boolean;
  };
  /** Per the password reset rules in services/dashboard/README.md: 5 a minute for both link requests, 10 for resets; per client IP and per e-mail. */
  rateLimits?: { requestsPerMinute?: number; resetsPerMinute?: number };
}

export interface PasswordResetOptions extends PasswordResetTuning {
  deps: DashboardDeps;
  db: Database;
  /** The session secret: it also seals reset tokens inside queued mail jobs. */
  secret: string;
  /** Handlers of other e-mail job kinds (the weekly digest) run by the same worker. */
  jobHandlers?: Record<string, JobHandler>;
  /** Handlers of other e-mail job kinds (alert notifications): one worker runs every kind of the queue. */
  mailHandlers?: (mail: { templates: MailTemplates; transport: MailTransport }) => Record<string, JobHandler>;
}

/**
 * The password reset flow (see the password reset rules and e-mail rules in services/dashboard/README.md) and its mail queue, as
 * one plugin registered by dashboardApp (whose auth hook, validator and error handler it uses).
 * The mail worker starts with the server and stops, after its current job, when it closes.
 */
export const passwordResetApp: FastifyPluginAsync<PasswordResetOptions> = async (app, opts) => {
  const { deps, db } = opts;
  const log = deps.log.child({ component: 'password-reset' });
  const transport = opts.mail?.transport ?? createMailTransport(deps.config, log);
  const templates = await loadMailTemplates(opts.mail?.templatesDir ?? TEMPLATES_DIR);
  const service = createPasswordResetService({
    db, config: deps.config, clock: deps.clock, queueClock: () => new Date(), passwordCost: deps.passwordCost,
    sealer: createTokenSealer(opts.secret), templates, transport, log,
  });

  // Local to this plugin: no global limit, only the counters the routes ask for.
  await app.register(rateLimit, { global: false });
  // One pair of counters per route: each route has its own budget (the password reset rules in services/dashboard/README.md list them separately).
  const requestsPerMinute = opts.rateLimits?.requestsPerMinute ?? 5;
  const limiters = {
    forgot: createRouteLimiter(app, requestsPerMinute),
    send: createRouteLimiter(app, requestsPerMinute),
    reset: createRouteLimiter(app, opts.rateLimits?.resetsPerMinute ?? 10),
  };
  await app.register(passwordResetRoutes, { deps, service, limiters });
  // Its own counter at the reset's rate: a guess of the current password costs what a reset does.
  await app.register(changePasswordRoute, { deps, service, limiter: createRouteLimiter(app, opts.rateLimits?.resetsPerMinute ?? 10) });

  if (opts.mail?.worker !== false) {
    const worker = createMailWorker({ ...opts.mail, jobs: createEmailJobRepository({ db }), handlers: { ...opts.jobHandlers, ...opts.mailHandlers?.({ templates, transport }), ...service.handlers }, log });
    app.addHook('onReady', async () => worker.start());
    app.addHook('onClose', async () => worker.stop());
  }
  log.info({ transport: transport.kind }, 'password reset flow ready');
};

export { createPasswordResetService, RESET_LINK_JOB, PASSWORD_CHANGED_JOB, type PasswordResetService } from './service.js';
export { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH, newPasswordErrors } from './password-rules.js';
export { createTokenSealer, newResetToken, tokenMatches, type TokenSealer } from './tokens.js';
