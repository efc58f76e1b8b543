import { orderOfMessage, storedOrderValidator, type StoredOrder } from '@chatlytics/events';
import type { Decoded } from './decode-step.js';
import { RejectReason } from './errors.js';
import { deadLetter, ok, type Step, type StepResult } from './step.js';

export const ORDER_STEP = 'order';

/**
 * An order state the ingest published (`{"kind":"order",…}`, @chatlytics/events order.ts)
 * becomes a row of `orders`, never of `events`: the flush inserts it into `orders` with the
 * events, before the batch's offsets are committed (flush-commit.ts). An order message that
 * does not match the StoredOrder schema is poison. Any other message goes on unchanged.
 */
export function createOrderStep(): Step<Decoded, Decoded> {
  return {
    name: ORDER_STEP,
    run(input): StepResult<Decoded> {
      const order = orderOfMessage(input.value);
      if (order === undefined) return ok(input);
      if (order === null) {
        const first = storedOrderValidator.Errors(input.value.order)[0];
        return deadLetter(RejectReason.SchemaInvalid, `/order${first?.instancePath ?? ''}: ${first?.message ?? 'not a StoredOrder'}`);
      }
      return { kind: 'order', order };
    },
  };
}

export type { StoredOrder };
