import type { ConsumedMessage } from '@chatlytics/bus';
import type { StoredOrder, StoredRefund } from '@chatlytics/events';
import type { RejectReason } from './errors.js';
import type { RowWriter } from './row-binary.js';

/**
 * Why a message was left out without being poison. A closed list: it is the `reason` label of
 * `chatlytics_consumer_drops_total`, so its cardinality stays bounded.
 */
export const DropReason = {
  /** An empty value (a Kafka tombstone): it carries no event. */
  Empty: 'empty',
  /** A message of a visitor erased on request (erased-step.ts). */
  Erased: 'erased',
} as const;
export type DropReason = (typeof DropReason)[keyof typeof DropReason];

/**
 * What a step returns. `ok` hands its value to the next step; every other kind ends the
 * message's way through the pipeline:
 * - `row`: the message is a row of the insert body now;
 * - `drop`: nothing to store and nothing wrong (counted by reason, committed);
 * - `dead-letter`: poison, recorded in the dead-letter stream and `events_rejected` (committed);
 *   with `setAside`, a purchase the ingest set aside: recorded in `events_rejected` only;
 * - `retry`: a passing failure; the whole batch is handed back uncommitted and redelivered;
 * - `order`: an order state (a row of `orders`) and/or refunds (rows of `order_refunds`), inserted with the flush (order-step.ts).
 */
export type StepResult<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'row' }
  | { kind: 'drop'; reason: DropReason }
  | { kind: 'dead-letter'; reason: RejectReason; error: string; setAside?: SetAside }
  | { kind: 'retry'; error: unknown }
  | { kind: 'order'; order?: StoredOrder; refunds: StoredRefund[] };

/**
 * A purchase the ingest set aside (set-aside-step.ts): recorded in `events_rejected` with its
 * chatbot and event id, but not poison, so not dead-lettered.
 */
export interface SetAside { chatbotId: string; eventId: string }

export const ok = <T>(value: T): StepResult<T> => ({ kind: 'ok', value });
/** One shared object: the fast path ends here for nearly every message, and allocates nothing. */
export const ROW: StepResult<never> = Object.freeze({ kind: 'row' });
export const drop = (reason: DropReason): StepResult<never> => ({ kind: 'drop', reason });
export const deadLetter = (reason: RejectReason, error: string): StepResult<never> => ({ kind: 'dead-letter', reason, error });
export const retry = (error: unknown): StepResult<never> => ({ kind: 'retry', error });

/** One named step: `name` labels its timing in /metrics and the dead letters it produces. */
export interface Step<In, Out> {
  readonly name: string;
  run(input: In): StepResult<Out>;
}

/** What every message enters the pipeline as: the message, and the insert body its row goes to. */
export interface Incoming {
  message: ConsumedMessage;
  rows: RowWriter;
}
