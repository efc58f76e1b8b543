import { AppError } from '@chatlytics/core';
import type { FieldErrors } from '@chatlytics/events';
import { errorSchema } from '../schemas.js';

/**
 * Every way the orders routes (POST /api/orders and the shop receivers) refuse a request, in
 * the project's one code scheme (services/ingest/README.md, "Orders"). 5xx messages are the
 * fixed texts below: a cause never reaches the client.
 */
export const ORDERS_ERRORS = {
  ORDERS_001: { status: 401, message: 'Missing or invalid credentials.' },
  ORDERS_002: { status: 400, message: 'The request body could not be read.' },
  ORDERS_003: { status: 422, message: 'The given order was invalid.' },
  ORDERS_004: { status: 503, message: 'The order could not be stored. Please retry later.' },
  ORDERS_005: { status: 500, message: 'Internal server error.' },
} as const satisfies Record<string, { status: number; message: string }>;
export type OrdersErrorCode = keyof typeof ORDERS_ERRORS;

/** Seconds a sender waits after a 503 (the bus or the settings store unavailable). */
export const ORDERS_RETRY_AFTER_SECONDS = 5;

export class OrdersError extends AppError {
  readonly errors?: FieldErrors;
  constructor(code: OrdersErrorCode, opts: { errors?: FieldErrors; cause?: unknown } = {}) {
    const def = ORDERS_ERRORS[code];
    super(code, def.message, { statusCode: def.status, retriable: def.status === 503, cause: opts.cause });
    this.name = 'OrdersError';
    this.errors = opts.errors;
  }
}

export const ordersErrorBody = (err: OrdersError) => ({
  success: false as const,
  error: { code: err.code, message: ORDERS_ERRORS[err.code as OrdersErrorCode].message },
  ...(err.errors ? { errors: err.errors } : {}),
});

/** What Fastify itself raises in the orders scope, as an orders error. */
export function ordersErrorOf(err: unknown): OrdersError {
  if (err instanceof OrdersError) return err;
  const status = (err as { statusCode?: number }).statusCode;
  if (status !== undefined && status >= 400 && status < 500) return new OrdersError('ORDERS_002', { cause: err });
  return new OrdersError('ORDERS_005', { cause: err });
}

/** The error statuses every orders route declares, in the ingest's one error body. */
export const ordersErrorResponses = {
  400: errorSchema('ORDERS_002: the body is not JSON, or over 1 MiB'),
  401: errorSchema('ORDERS_001: credentials missing, wrong, or another chatbot\'s'),
  422: errorSchema('ORDERS_003: the order breaks a rule; `errors` names each field'),
  500: errorSchema('ORDERS_005: unexpected error (no details)'),
  503: errorSchema('ORDERS_004: not durable, or the credentials could not be read; retry after Retry-After seconds'),
};
