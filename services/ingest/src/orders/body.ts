import type { FastifyRequest } from 'fastify';
import { parseJsonSafely } from '@chatlytics/events';
import { OrdersError } from './errors.js';

/** The request's bytes (an empty body is zero bytes). */
export const rawBody = (request: FastifyRequest): Buffer => (Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0));

/** JSON from bytes an authenticated sender sent, or 400. */
export function parseBody(raw: Buffer): unknown {
  try {
    return parseJsonSafely(raw.toString('utf8'));
  } catch (err) {
    throw new OrdersError('ORDERS_002', { cause: err });
  }
}
