/**
 * The dashboard's public API (the package's "." entry): the app plugin for the entry points,
 * and what the standalone application and its CLI use (repositories, errors, auth, fixtures,
 * the digest, the alerts and the job queue). app.ts only composes.
 */
export { dashboardApp, dashboardApp as default, buildDashboardDeps, DASHBOARD_API_PREFIX, DASHBOARD_WEB_PREFIX, type DashboardOptions } from './app.js';
export type { DashboardDeps } from './deps.js';
export * from './repositories/index.js';
export * from './repositories/chatbot-repository.js';
export * from './analytics/conversation-repository.js';
export * from './data-sources/repository.js';
export * from './data-sources/search-repository.js';
export { embedFor, TRACKER_STUB } from './chatbots/presenter.js';
export * from './http/errors.js';
export { dashboardErrorHandler, toDashboardError, errorBody } from './http/error-handler.js';
export { dashboardValidatorCompiler, fieldErrors } from './http/validation.js';
export { dashboardAuth, headerCredential, principalOf } from './auth/auth-plugin.js';
export type { Principal, AuthMode } from './auth/principal.js';
export { hashPassword, verifyPassword, DEFAULT_SCRYPT_COST, TEST_SCRYPT_COST, type ScryptCost } from './auth/passwords.js';
export { generateCredential, sha256Hex, randomId, digestsEqual } from './crypto/credentials.js';
export { SESSION_COOKIE, SESSION_TTL_MS, cookiePolicy, readSessionCookie, setSessionCookie, clearSessionCookie } from './auth/session-cookie.js';
export { setFlash, takeFlash, FLASH_COOKIE, type Flash } from './auth/flash.js';
export { isCrossOrigin, siteOrigin, type OriginPolicy, sameOriginPath, localPath, wantsJson } from './http/origin.js';
export { checkCredentials, startSession, endSession, APP_HOME, HOME_AFTER_LOGIN, LOGIN_PAGE } from './auth/log-in.js';
export { createLocalRawContentStorage, type RawContentStorage } from './data-sources/raw-content-storage.js';
export { formatDate, formatDateTimeMinutes, formatDateTimeSeconds, timeAgo } from './html/time.js';
export { truncateRawContent, RAW_CONTENT_PREVIEW_CHARS } from './data-sources/raw-content.js';
export { dashboardSecuritySchemes, ErrorResponse, errorResponses, Success } from './http/schemas.js';
export { pagesNotFound } from './http/not-found.js';
export { importFixture, type ImportOptions, type ImportSummary } from './fixtures/import.js';
export { FixtureSchema, parseFixture, type Fixture } from './fixtures/schema.js';
export { buildDigestService, renderDigest, type DigestTuning, type FiredAlert, type FiredAlertsSource } from './digest/index.js';
export { createMailTransport } from './mail/transport.js';
export { createAlertRepository, webhookBody, type AlertRepository } from './alerts/repository.js';
export { createAlertEvaluator, ALERT_EVALUATOR_LOCK_KEY, type AlertEvaluator } from './alerts/evaluator.js';
export { createAlertFigures } from './alerts/figures.js';
export { createWebhookWorker, WEBHOOK_JOB } from './alerts/webhook-job.js';
export { createJobQueue, type JobQueue } from './jobs/queue.js';
export { createJobWorker, type JobWorker } from './jobs/worker.js';
export { signBody, SIGNATURE_HEADER } from './alerts/signature.js';
