import { AppError } from '@chatlytics/core';
import type { FieldErrors } from '@chatlytics/events';

/**
 * Every way the tracking endpoint refuses a request, like fastify's lib/errors.js. Codes follow
 * the project's one scheme, `<AREA>_<NNN>` (see services/ingest/README.md). `publicCode` is what
 * the body's `error.code` shows: the four numbered payload errors clients branch on; validation,
 * rate limiting, unknown routes and internal errors show null.
 */
export const TRACK_ERRORS = {
  ANALYTICS_001: { status: 400, publicCode: 'ANALYTICS_001', message: 'Invalid event payload.' },
  ANALYTICS_002: { status: 400, publicCode: 'ANALYTICS_002', message: 'Payload too large.' },
  ANALYTICS_003: { status: 403, publicCode: 'ANALYTICS_003', message: 'Origin not allowed.' },
  ANALYTICS_004: { status: 503, publicCode: 'ANALYTICS_004', message: 'The event could not be stored. Please retry later.' },
  /** A field is missing or invalid, or the event type is unknown. */
  ANALYTICS_005: { status: 422, publicCode: null, message: 'The given data was invalid.' },
  /** Too many requests from one client IP. */
  ANALYTICS_006: { status: 429, publicCode: null, message: 'Too many requests.' },
  /** No tracking route at this method and path. */
  ANALYTICS_007: { status: 404, publicCode: null, message: 'Not found.' },
  /** Anything unexpected; the message never carries the cause. */
  ANALYTICS_008: { status: 500, publicCode: null, message: 'Internal server error.' },
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

/** The tracking error body, the one shape of every tracking error: `{success: false, error: {code, message}, errors?}`. */
export function errorBody(err: TrackError): { success: false; error: { code: string | null; message: string }; errors?: FieldErrors } {
  // 5xx messages are fixed texts from the table above: a driver's message never reaches a client.
  const message = err.expose ? err.message : TRACK_ERRORS[err.code as TrackErrorCode].message;
  return err.errors
    ? { success: false, error: { code: err.publicCode, message }, errors: err.errors }
    : { success: false, error: { code: err.publicCode, message } };
}

/**
 * The 404 of an unknown path in the tracking scope (and of every path of the ingest service
 * when it runs alone), in the tracking error shape.
 */
export function trackNotFound(_req: unknown, reply: { code(status: number): { send(body: unknown): unknown } }) {
  return reply.code(404).send(errorBody(new TrackError('ANALYTICS_007')));
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
      return new TrackError('ANALYTICS_008', { cause: err });
  }
}
