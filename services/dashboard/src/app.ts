import path from 'node:path';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { Config, Logger } from '@chatlytics/core';
import type { Postgres } from '@chatlytics/postgres';
import { dashboardAuth } from './auth/auth-plugin.js';
import { DEFAULT_SCRYPT_COST, type ScryptCost } from './auth/passwords.js';
import { cookiePolicy } from './auth/session-cookie.js';
import type { DashboardDeps } from './deps.js';
import { dashboardErrorHandler } from './http/error-handler.js';
import { Errors } from './http/errors.js';
import {
  createAccountRepository, createCredentialRepository, createLoginFailureRepository, createSessionRepository, createUserRepository,
} from './repositories/index.js';
import { createChatbotRepository } from './repositories/chatbot-repository.js';
import { createOrdersSettingsRepository } from './repositories/orders-settings-repository.js';
import { ordersKeyRoutes } from './chatbots/orders-key-routes.js';
import { revenueSettingsRoutes } from './chatbots/revenue-settings-routes.js';
import { createConversationRepository } from './analytics/conversation-repository.js';
import { createDataSourceRepository, type DataSourceStores } from './data-sources/repository.js';
import { createSearchRepository } from './data-sources/search-repository.js';
import { apiKeyRoutes } from './settings/api-key-routes.js';
import { authRoutes } from './auth/routes.js';
import { authTokenRoutes } from './auth/token-routes.js';
import { createLoginThrottle } from './auth/login-throttle.js';
import { APP_HOME, HOME_AFTER_LOGIN } from './auth/log-in.js';
import { chatbotRoutes } from './chatbots/routes.js';
import { dataSourceRoutes } from './data-sources/routes.js';
import { searchTestRoutes } from './data-sources/search-test-routes.js';
import { sqlKeyRoutes } from './settings/sql-key-routes.js';
import { createSqlKeyRepository } from './repositories/sql-key-repository.js';
import { createLocalRawContentStorage, type RawContentStorage } from './data-sources/raw-content-storage.js';
import { dashboardValidatorCompiler } from './http/validation.js';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import { createStatsService, statsRoutes } from './stats/index.js';
import { createPasswordResetService, createTokenSealer, passwordResetApp, type PasswordResetTuning } from './password-reset/index.js';
import { changePasswordRoute } from './settings/password-route.js';
import { pageRoutes } from './auth/page-routes.js';
import { pagesNotFound } from './http/not-found.js';
import { appAssets } from './http/asset-routes.js';
import { appPageRoutes } from './analytics/page-routes.js';
import { manageRoutes } from './settings/routes.js';
import { trackingSettingsRoutes } from './chatbots/tracking-settings-routes.js';
import { dataSourcePageRoutes } from './data-sources/page-routes.js';
import { createVisitorEventRepository } from './analytics/visitor-event-repository.js';
import { createDigestRepository } from './digest/repository.js';
import {
  buildDigestService, createUnsubscribeSigner, DEFAULT_DIGEST_INTERVAL_MS, digestSchedulerPlugin, notificationRoutes, unsubscribeRoutes, type DigestTuning,
} from './digest/index.js';
import { createMailTransport } from './mail/transport.js';
import { loadMailTemplates, TEMPLATES_DIR } from './mail/templates.js';
import { createJobQueue } from './jobs/queue.js';
import { mailKinds } from './jobs/worker.js';
import { jobWorkerPlugin } from './jobs/plugin.js';
import { WEBHOOK_JOB, webhookKind } from './alerts/webhook-job.js';
import { createAlertRepository } from './alerts/repository.js';
import { alertRoutes } from './alerts/routes.js';
import { alertMailHandlers } from './alerts/mail.js';
import { alertLoopsPlugin, type AlertTuning } from './alerts/plugin.js';
import { alertPageRoutes } from './alerts/page-routes.js';
import { firedAlertsOf } from './alerts/fired.js';
import { createPrivacyFeature, type PrivacyTuning } from './privacy/index.js';

export interface DashboardOptions {
  config: Config;
  postgres: Postgres;
  /** The statistics endpoints (src/stats) are registered only when given. */
  clickhouse?: ClickHouseEngine;
  log?: Logger;
  /** Raw content of data sources; default: a directory DATA_DIR/storage. */
  storage?: RawContentStorage;
  /** Signs session cookies; default config.sessionSecret (the entry point fills it from DATA_DIR when unset). */
  sessionSecret?: string;
  /** scrypt cost of new password hashes; tests lower it. */
  passwordCost?: ScryptCost;
  /** "Now" for relative times and session expiry; tests pin it. */
  clock?: () => Date;
  /** E-mail, job worker and rate-limit knobs (src/password-reset/index.ts PasswordResetTuning); tests shorten them. */
  passwordReset?: PasswordResetTuning;
  /** Lifetime of a cached statistic (ms, default DEFAULT_STATS_CACHE_TTL_MS: 0.5 s); 0 disables the cache, so a benchmark measures the queries. */
  statsCacheTtlMs?: number;
  /** The weekly digest (src/digest): scheduler interval, the alerts source; tests shorten or stop the scheduler. */
  digest?: DigestTuning;
  /** The alert evaluator's interval and the webhook kind's retries (src/alerts/plugin.ts); tests shorten them. */
  alerts?: AlertTuning;
  /** The erasure's wait for the consumers (src/privacy); tests shorten it. */
  privacy?: PrivacyTuning;
}

/** Paths whose unknown sub-paths answer the dashboard's JSON 404 (see the response and error rules in services/dashboard/docs/api.md). */
export const DASHBOARD_API_PREFIX = '/api/dashboard';
export const DASHBOARD_WEB_PREFIX = '/app';

export function buildDashboardDeps(app: FastifyInstance, opts: DashboardOptions): DashboardDeps {
  const { db } = opts.postgres;
  return {
    config: opts.config,
    log: opts.log ?? app.log,
    clock: opts.clock ?? (() => new Date()),
    passwordCost: opts.passwordCost ?? DEFAULT_SCRYPT_COST,
    cookies: cookiePolicy(opts.config.appUrl),
    appOrigin: new URL(opts.config.appUrl).origin,
    origins: { appOrigin: new URL(opts.config.appUrl).origin, loopbackSameOrigin: !opts.config.appUrlExplicit },
    repos: {
      accounts: createAccountRepository({ db }),
      chatbots: createChatbotRepository({ db }),
      ordersSettings: createOrdersSettingsRepository({ db }),
      users: createUserRepository({ db }),
      credentials: createCredentialRepository({ db }),
      sessions: createSessionRepository({ db }),
      loginFailures: createLoginFailureRepository({ db }),
    },
  };
}

/**
 * The dashboard service (see the endpoint details, authentication rules and response and error rules in services/dashboard/docs/api.md) as one encapsulated Fastify plugin:
 * its error handler, validator and 404s apply to its own routes only, so it can share a process
 * with ingest. Health, metrics and OpenAPI docs are the entry point's.
 */
export const dashboardApp: FastifyPluginAsync<DashboardOptions> = async (app, opts) => {
  const secret = opts.sessionSecret ?? opts.config.sessionSecret;
  if (!secret) throw new Error('dashboardApp needs a session secret (options.sessionSecret or config.sessionSecret)');
  const deps = buildDashboardDeps(app, opts);
  const { db } = opts.postgres;
  const stores: DataSourceStores = {
    dataSources: createDataSourceRepository({ db }),
    search: createSearchRepository({ db }),
    storage: opts.storage ?? createLocalRawContentStorage(path.join(opts.config.dataDir, 'storage')),
  };

  // The entry point may already provide them to every service; registering twice would throw.
  if (!app.hasDecorator('parseCookie')) await app.register(cookie, { secret, hook: 'onRequest' });
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) await app.register(formbody);

  app.setValidatorCompiler(dashboardValidatorCompiler);
  app.setErrorHandler(dashboardErrorHandler);
  await app.register(dashboardAuth, {
    credentials: deps.repos.credentials, sessions: deps.repos.sessions, origins: deps.origins, clock: deps.clock,
  });

  // Without ClickHouse there are no app pages: a form log-in then lands on the profile.
  // One throttle for the log-in form and the token route: both count the same attempts.
  const throttle = createLoginThrottle({ failures: deps.repos.loginFailures, clock: deps.clock });
  await app.register(authRoutes, { deps, throttle, home: opts.clickhouse ? APP_HOME : HOME_AFTER_LOGIN });
  await app.register(authTokenRoutes, { deps, throttle });
  const alerts = createAlertRepository({ db: opts.postgres.db });
  const stats = opts.clickhouse
    ? createStatsService({ clickhouse: opts.clickhouse, db: opts.postgres.db, appUrl: opts.config.appUrl, clock: deps.clock, cacheTtlMs: opts.statsCacheTtlMs })
    : undefined;
  // Erasure and export of one visitor: both stores, so only with ClickHouse.
  const privacy = opts.clickhouse ? createPrivacyFeature({ ...opts.privacy, db: opts.postgres.db, clickhouse: opts.clickhouse, config: opts.config, secret, clock: deps.clock }) : undefined;
  const mail = opts.passwordReset?.mail;
  // One transport for every e-mail, the templates compiled once.
  const transport = mail?.transport ?? createMailTransport(opts.config, deps.log.child({ component: 'mail' }));
  const templates = await loadMailTemplates(mail?.templatesDir ?? TEMPLATES_DIR);
  const passwordReset = createPasswordResetService({
    db: opts.postgres.db, config: opts.config, clock: deps.clock, queueClock: () => new Date(), passwordCost: deps.passwordCost,
    sealer: createTokenSealer(secret), templates, transport, log: deps.log.child({ component: 'password-reset' }),
  });
  // The digest needs the statistics: only a dashboard with ClickHouse sends it.
  const digest = stats
    ? buildDigestService({
      config: opts.config, db: opts.postgres.db, stats, chatbots: deps.repos.chatbots, secret, transport,
      log: deps.log.child({ component: 'digest' }), clock: opts.digest?.clock ?? deps.clock, firedAlerts: opts.digest?.firedAlerts ?? firedAlertsOf(alerts),
    })
    : undefined;
  await app.register(passwordResetApp, { deps, service: passwordReset, rateLimits: opts.passwordReset?.rateLimits });
  await app.register(changePasswordRoute, { deps, service: passwordReset, perMinute: opts.passwordReset?.rateLimits?.resetsPerMinute });
  // One worker runs every kind of the queue, unless another process sends.
  if (mail?.worker !== false) {
    await app.register(jobWorkerPlugin, {
      jobs: createJobQueue({ db: opts.postgres.db }), log: deps.log.child({ component: 'jobs' }), pollIntervalMs: mail?.pollIntervalMs, leaseMs: mail?.leaseMs,
      handlers: {
        ...mailKinds({ ...passwordReset.handlers, ...digest?.handlers, ...alertMailHandlers({ templates, transport, config: deps.config }) }, mail),
        [WEBHOOK_JOB]: webhookKind({ ...opts.alerts?.webhook, allowPrivate: opts.config.alerts.webhookAllowPrivate }),
        ...privacy?.jobKinds,
      },
    });
  }
  if (digest) {
    await app.register(digestSchedulerPlugin, {
      digests: digest, postgres: opts.postgres, log: deps.log, intervalMs: opts.digest?.intervalMs ?? DEFAULT_DIGEST_INTERVAL_MS,
    });
  }
  // Each user's weekly digest switch and the weeks queued.
  const digests = createDigestRepository({ db: opts.postgres.db });
  await app.register(unsubscribeRoutes, { digests, signer: createUnsubscribeSigner(secret) });
  if (privacy) await privacy.loop(app, { postgres: opts.postgres, log: deps.log });
  if (opts.clickhouse) {
    await app.register(alertLoopsPlugin, {
      ...opts.alerts, config: opts.config, alerts, clickhouse: opts.clickhouse, postgres: opts.postgres, log: deps.log, clock: deps.clock,
    });
  }
  await app.register(pageRoutes, { deps });
  await app.register(appAssets);
  if (stats && opts.clickhouse) {
    await app.register(appPageRoutes, { deps, stats, conversations: createConversationRepository({ db }), visitorEvents: createVisitorEventRepository(opts.clickhouse) });
    await app.register(manageRoutes, { deps, digests });
    await app.register(trackingSettingsRoutes, { deps });
    await app.register(revenueSettingsRoutes, { deps });
    await app.register(dataSourcePageRoutes, { deps, stores });
    await app.register(alertPageRoutes, { deps, alerts });
  }
  await app.register(async (api) => {
    api.setNotFoundHandler(() => { throw Errors.routeNotFound(); });
    await api.register(chatbotRoutes, { deps });
    await api.register(ordersKeyRoutes, { deps });
    await api.register(apiKeyRoutes, { deps });
    await api.register(dataSourceRoutes, { deps, stores });
    await api.register(notificationRoutes, { deps, digests });
    await api.register(alertRoutes, { deps, alerts });
    if (privacy) await api.register(privacy.routes, { deps });
    await api.register(sqlKeyRoutes, { deps, sqlKeys: createSqlKeyRepository({ db: opts.postgres.db }) });
    if (stats) await api.register(statsRoutes, { stats });
  }, { prefix: DASHBOARD_API_PREFIX });
  await app.register(async (web) => {
    // A browser (Accept: text/html) gets the 404 page; API clients the JSON body.
    web.setNotFoundHandler((req, reply) => {
      if ((req.headers.accept ?? '').includes('text/html')) return pagesNotFound(req, reply);
      throw Errors.routeNotFound();
    });
    await web.register(searchTestRoutes, { deps, stores });
  }, { prefix: DASHBOARD_WEB_PREFIX });
};

export default dashboardApp;
