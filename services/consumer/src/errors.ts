import { AppError } from '@chatlytics/core';
import type { SetAsideReason } from '@chatlytics/events';

/**
 * Why a message never reached `events`. These codes are the `reason` column of
 * `events_rejected`, the `reason` field of the dead-letter wrapper and the `reason` label
 * of the rejects metric, so they are a closed list (bounded metric cardinality).
 */
export const RejectReason = {
  /** The bus value is not a JSON object (same code as @chatlytics/events decodeStoredEvent). */
  Undecodable: 'malformed_json',
  /** JSON, but not a StoredEvent: missing field, wrong type, bad format (ditto). */
  SchemaInvalid: 'invalid_event',
  /** Valid by our schema, yet ClickHouse refused the row (isolated by bisecting the insert). */
  InsertRejected: 'insert_rejected',
  /** A step threw an error not marked retriable: a bug, recorded instead of blocking the partition. */
  Internal: 'internal',
} as const;
/** Plus the reasons the ingest sets a purchase aside for (@chatlytics/events SET_ASIDE_REASONS): not poison. */
export type RejectReason = (typeof RejectReason)[keyof typeof RejectReason] | SetAsideReason;

/** Coded errors of the consumer service (like fastify's lib/errors.js); tests assert the codes. */
export const ConsumerErrorCode = {
  StoppedDuringRetry: 'CONSUMER_001',
  AlreadyStarted: 'CONSUMER_002',
  BadReplayArgs: 'CONSUMER_003',
} as const;

export class ConsumerError extends AppError {
  constructor(code: string, message: string, opts: { retriable?: boolean; cause?: unknown; statusCode?: number } = {}) {
    super(code, message, opts);
    this.name = 'ConsumerError';
  }
}

export const stoppedDuringRetry = (what: string, cause: unknown) =>
  new ConsumerError(ConsumerErrorCode.StoppedDuringRetry, `consumer stopping: gave up retrying ${what}; the batch stays uncommitted and will be redelivered`, { cause });
export const alreadyStarted = () => new ConsumerError(ConsumerErrorCode.AlreadyStarted, 'consumer already started');
export const badReplayArgs = (message: string) => new ConsumerError(ConsumerErrorCode.BadReplayArgs, message, { statusCode: 400 });
