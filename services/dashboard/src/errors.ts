import { AppError } from '@chatlytics/core';

/**
 * Every error the dashboard answers with, coded (like fastify's lib/errors.js). Messages of
 * 4xx errors are shown to clients verbatim (CONTRACT §3); 5xx messages here are written to be
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
} as const;

export const Errors = {
  unauthenticated: () => new DashboardError('DASHBOARD_UNAUTHENTICATED', MESSAGES.unauthenticated, 401),
  /** A session-only route reached with an API key or token (CONTRACT §2). */
  sessionRequired: () => new DashboardError('DASHBOARD_SESSION_REQUIRED', MESSAGES.unauthenticated, 401),
  crossOrigin: () => new DashboardError('DASHBOARD_CROSS_ORIGIN', MESSAGES.forbidden, 403),
  notFound: () => new DashboardError('DASHBOARD_NOT_FOUND', MESSAGES.notFound, 404),
  /** SQL keys read every account's events: only users listed in SQL_KEY_ADMINS manage them. */
  sqlKeysForbidden: () => new DashboardError('DASHBOARD_SQL_KEYS_FORBIDDEN', MESSAGES.forbidden, 403),
  routeNotFound: () => new DashboardError('DASHBOARD_ROUTE_NOT_FOUND', MESSAGES.notFound, 404),
  validation: (errors: FieldErrors) => new DashboardError('DASHBOARD_VALIDATION', MESSAGES.invalid, 422, { errors }),
  badCredentials: () => new DashboardError('DASHBOARD_BAD_CREDENTIALS', MESSAGES.badCredentials, 422, {
    errors: { email: [MESSAGES.badCredentials] },
  }),
  malformedBody: (cause?: unknown) => new DashboardError('DASHBOARD_MALFORMED_BODY', 'Malformed request body.', 400, { cause }),
  unsupportedMediaType: (cause?: unknown) => new DashboardError('DASHBOARD_UNSUPPORTED_MEDIA_TYPE', 'Unsupported media type.', 415, { cause }),
  payloadTooLarge: (cause?: unknown) => new DashboardError('DASHBOARD_PAYLOAD_TOO_LARGE', 'Payload too large.', 413, { cause }),
  searchFailed: (cause: unknown) => new DashboardError('DASHBOARD_SEARCH_FAILED', MESSAGES.searchFailed, 500, { cause }),
  internal: (cause: unknown) => new DashboardError('DASHBOARD_INTERNAL', MESSAGES.serverError, 500, { cause }),
} as const;

export interface ErrorBody {
  success: false;
  message: string;
  errors?: FieldErrors;
}
