import type { ConsumedMessage } from '@chatlytics/bus';
import { storedEventProblem, storedEventValidator, type StoredEvent } from '@chatlytics/events';
import { RejectReason } from './errors.js';
import type { RowWriter } from './row-binary.js';
import type { Decoded } from './decode-step.js';
import { deadLetter, ok, type Step } from './step.js';

export interface Validated {
  message: ConsumedMessage;
  rows: RowWriter;
  event: StoredEvent;
}

/** Against the very schema the ingest serialises with; the first error names the field. */
export function createValidateStep(): Step<Decoded, Validated> {
  return {
    name: 'validate',
    run({ message, rows, value }) {
      if (storedEventValidator.Check(value)) {
        const problem = storedEventProblem(value);
        if (!problem) return ok({ message, rows, event: value });
        return deadLetter(RejectReason.SchemaInvalid, `/${problem.field}: ${problem.message}`);
      }
      const first = storedEventValidator.Errors(value)[0];
      const where = first?.instancePath || '/';
      return deadLetter(RejectReason.SchemaInvalid, `${where}: ${first?.message ?? 'does not match the StoredEvent schema'}`);
    },
  };
}
