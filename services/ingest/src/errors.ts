import { AppError } from '@chatlytics/core';
import type { FieldErrors } from '@chatlytics/events';

/**
 * Every way the tracking endpoint refuses a request (CONTRACT §3), like fastify's lib/errors.js.
 * `code` is stable and used for metrics and tests; `publicCode` is what the body's
 * `error.code` shows (the spec gives 422 and 429 no code: null).
 */
export const TRACK_ERRORS = {
  ANALYTICS_001: { status: 400, publicCode: 'ANALYTICS_001', message: 'Invalid event payload.' },
  ANALYTICS_002: { status: 400, publicCode: 'ANALYTICS_002', message: 'Payload too large.' },
  ANALYTICS_003: { status: 403, publicCode: 'ANALYTICS_003', message: 'Origin not allowed.' },
  ANALYTICS_004: { status: 503, publicCode: 'ANALYTICS_004', message: 'The event could not be stored. Please retry later.' },
  VALIDATION_FAILED: { status: 422, publicCode: null, message: 'The given data was invalid.' },
  RATE_LIMITED: { status: 429, publicCode: null, message: 'Too many requests.' },
  INTERNAL_ERROR: { status: 500, publicCode: null, message: 'Internal server error.' },
} as const satisfies Record<string, { status: number; publicCode: string | null; message: string }>;

export type TrackErrorCode = keyof typeof TRACK_ERRORS;

/**
 * How long a client should wait after a 503: long enough for a broker failover or a disk
 * hiccup to pass, short enough that a beacon retried by the widget is not lost to a page close.
 */
export const BUS_RETRY_AFTER_SECONDS = 5;

export class TrackError extends AppError {
  readonly publicCode: string | null;
  readonly errors?: FieldErrors;
  /** Seconds, sent as Retry-After (429, 503). */
  readonly retryAfter?: number;
  constructor(code: TrackErrorCode, opts: { errors?: FieldErrors; retryAfter?: number; cause?: unknown; message?: string } = {}) {
    const def = TRACK_ERRORS[code];
    super(code, opts.message ?? def.message, { statusCode: def.status, retriable: def.status === 503 || def.status === 429, cause: opts.cause });
    this.name = 'TrackError';
    this.publicCode = def.publicCode;
    this.errors = opts.errors;
    this.retryAfter = opts.retryAfter;
  }
}

/** The tracking error body: `{success: false, error: {code, message}, errors?}` (CONTRACT §3). */
export function errorBody(err: TrackError): { success: false; error: { code: string | null; message: string }; errors?: FieldErrors } {
  // 5xx messages are fixed texts from the table above: a driver's message never reaches a client.
  const message = err.expose ? err.message : TRACK_ERRORS[err.code as TrackErrorCode].message;
  return err.errors
    ? { success: false, error: { code: err.publicCode, message }, errors: err.errors }
    : { success: false, error: { code: err.publicCode, message } };
}

/**
 * Maps what Fastify itself throws inside this plugin's scope (body parsing, content types) onto
 * the tracking codes. Anything unrecognised is an internal error.
 */
export function fromFastifyError(err: { code?: string; statusCode?: number }): TrackError {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new TrackError('ANALYTICS_002', { errors: { body: ['The request body is too large.'] } });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new TrackError('ANALYTICS_001', { errors: { body: ['Send the event as application/json, text/plain JSON or a form.'] } });
    default:
      // Every other 4xx Fastify raises here is about the shape of the request (bad
      // content-length, empty JSON body, invalid charset): an invalid payload.
      if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
        return new TrackError('ANALYTICS_001', { errors: { body: ['The request body could not be read.'] } });
      }
      return new TrackError('INTERNAL_ERROR', { cause: err });
  }
}
