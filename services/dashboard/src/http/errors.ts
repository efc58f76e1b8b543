import { AppError } from '@chatlytics/core';

/**
 * Every error the dashboard answers with, coded (like fastify's lib/errors.js). Messages of
 * 4xx errors are shown to clients verbatim (see the response and error rules in services/dashboard/docs/api.md); 5xx messages here are written to be
 * safe to show, and the real cause travels in `cause` to the log only.
 */
export type FieldErrors = Record<string, string[]>;

export class DashboardError extends AppError {
  readonly errors?: FieldErrors;
  constructor(code: string, message: string, statusCode: number, opts: { errors?: FieldErrors; cause?: unknown } = {}) {
    super(code, message, { statusCode, cause: opts.cause });
    this.name = 'DashboardError';
    this.errors = opts.errors;
  }
}

export const MESSAGES = {
  unauthenticated: 'Unauthenticated.',
  notFound: 'Not found.',
  forbidden: 'Forbidden.',
  invalid: 'The given data was invalid.',
  badCredentials: 'These credentials do not match our records.',
  searchFailed: 'Search failed.',
  serverError: 'Server Error',
  // The password reset flow; the first two are documented texts (services/dashboard/README.md), verbatim.
  linkRequested: "If an account with that email exists, we've sent a password reset link.",
  linkSent: 'Password reset link has been sent to your email.',
  passwordReset: 'Your password has been reset.',
  passwordChanged: 'Your password has been changed. Every other session has been logged out.',
  wrongPassword: 'The password is incorrect.',
  invalidToken: 'This password reset token is invalid.',
  alreadyLoggedIn: 'You are already logged in.',
  tooManyAttempts: 'Too Many Attempts.',
  tooManyLogins: 'Too many login attempts. Please try again later.',
  readOnlyKey: 'This API key may only read: create a key with the manage scope for this.',
  userRequired: 'Auth tokens belong to a user: use an auth token or a web session, not an API key.',
} as const;

export const Errors = {
  unauthenticated: () => new DashboardError('DASHBOARD_001', MESSAGES.unauthenticated, 401),
  /** A session-only route reached with an API key or token (see the authentication rules in services/dashboard/docs/api.md). */
  sessionRequired: () => new DashboardError('DASHBOARD_002', MESSAGES.unauthenticated, 401),
  crossOrigin: () => new DashboardError('DASHBOARD_003', MESSAGES.forbidden, 403),
  notFound: () => new DashboardError('DASHBOARD_004', MESSAGES.notFound, 404),
  /** SQL keys read every account's events: only users listed in SQL_KEY_ADMINS manage them. */
  sqlKeysForbidden: () => new DashboardError('DASHBOARD_017', MESSAGES.forbidden, 403),
  routeNotFound: () => new DashboardError('DASHBOARD_005', MESSAGES.notFound, 404),
  validation: (errors: FieldErrors) => new DashboardError('DASHBOARD_006', MESSAGES.invalid, 422, { errors }),
  badCredentials: () => new DashboardError('DASHBOARD_007', MESSAGES.badCredentials, 422, {
    errors: { email: [MESSAGES.badCredentials] },
  }),
  malformedBody: (cause?: unknown) => new DashboardError('DASHBOARD_008', 'Malformed request body.', 400, { cause }),
  unsupportedMediaType: (cause?: unknown) => new DashboardError('DASHBOARD_009', 'Unsupported media type.', 415, { cause }),
  payloadTooLarge: (cause?: unknown) => new DashboardError('DASHBOARD_010', 'Payload too large.', 413, { cause }),
  searchFailed: (cause: unknown) => new DashboardError('DASHBOARD_011', MESSAGES.searchFailed, 500, { cause }),
  internal: (cause: unknown) => new DashboardError('DASHBOARD_012', MESSAGES.serverError, 500, { cause }),
  /** POST /forgot-password with a live session (see the authentication rules in services/dashboard/docs/api.md: guests only). */
  resetGuestOnly: () => new DashboardError('DASHBOARD_013', MESSAGES.alreadyLoggedIn, 403),
  resetRateLimited: () => new DashboardError('DASHBOARD_014', MESSAGES.tooManyAttempts, 429),
  /** Log-in throttle (auth/login-throttle.ts); the same answer whether or not the e-mail has an account. */
  loginThrottled: () => new DashboardError('DASHBOARD_018', MESSAGES.tooManyLogins, 429),
  /** A `read` API key on a route that changes state (POST, PUT, PATCH, DELETE). */
  readOnlyKey: () => new DashboardError('DASHBOARD_019', MESSAGES.readOnlyKey, 403),
  /** The auth token routes with an API key, which belongs to the account and to no user. */
  userRequired: () => new DashboardError('DASHBOARD_020', MESSAGES.userRequired, 403),
  /** Unknown, expired, used, or another e-mail's token: one answer, so none of them can be told apart. */
  resetInvalidToken: () => new DashboardError('DASHBOARD_015', MESSAGES.invalidToken, 422, {
    errors: { email: [MESSAGES.invalidToken] },
  }),
} as const;

/** A webhook delivery that must not be retried: the target is refused by the SSRF rule. Any other delivery error is retried. */
export class WebhookPermanentError extends AppError {
  constructor(message: string) {
    super('DASHBOARD_022', message, { statusCode: 422, retriable: false });
    this.name = 'WebhookPermanentError';
  }
}

/**
 * Failures of what the dashboard sends itself (e-mail, webhooks): kept on the job as its
 * `last_error` and logged with the code, never answered to a client.
 */
export const DeliveryErrors = {
  /** The provider did not accept an e-mail; the job tries again. */
  mailFailed: (detail: string, cause?: unknown) => new AppError('DASHBOARD_016', `e-mail delivery failed: ${detail}`, { statusCode: 502, retriable: true, cause }),
  /** An error answer or a timeout of a webhook target; the job tries again (network errors are retried too). */
  webhookFailed: (detail: string) => new AppError('DASHBOARD_021', `webhook delivery failed: ${detail}`, { statusCode: 502, retriable: true }),
  webhookRefused: (message: string) => new WebhookPermanentError(message),
} as const;

export interface ErrorBody {
  success: false;
  message: string;
  errors?: FieldErrors;
}
