import { orderOfMessage, refundOfMessage, refundsOfOrder, storedOrderValidator, storedRefundValidator, type StoredOrder } from '@chatlytics/events';
import type { Decoded } from './decode-step.js';
import { RejectReason } from './errors.js';
import { deadLetter, ok, type Step, type StepResult } from './step.js';

export const ORDER_STEP = 'order';

/**
 * An order state the ingest published (`{"kind":"order",…}`, @chatlytics/events order.ts)
 * becomes a row of `orders` and its refunds rows of `order_refunds`; a refund reported alone
 * (`{"kind":"order_refund",…}`) a row of `order_refunds`; never a row of `events`: the flush inserts it into `orders` with the
 * events, before the batch's offsets are committed (flush-commit.ts). An order message that
 * does not match the StoredOrder schema is poison. Any other message goes on unchanged.
 */
export function createOrderStep(): Step<Decoded, Decoded> {
  return {
    name: ORDER_STEP,
    run(input): StepResult<Decoded> {
      const refund = refundOfMessage(input.value);
      if (refund === null) {
        const first = storedRefundValidator.Errors(input.value.refund)[0];
        return deadLetter(RejectReason.SchemaInvalid, `/refund${first?.instancePath ?? ''}: ${first?.message ?? 'not a StoredRefund'}`);
      }
      if (refund) return { kind: 'order', refunds: [refund] };
      const order = orderOfMessage(input.value);
      if (order === undefined) return ok(input);
      if (order === null) {
        const first = storedOrderValidator.Errors(input.value.order)[0];
        return deadLetter(RejectReason.SchemaInvalid, `/order${first?.instancePath ?? ''}: ${first?.message ?? 'not a StoredOrder'}`);
      }
      return { kind: 'order', order, refunds: refundsOfOrder(order) };
    },
  };
}

export type { StoredOrder };
