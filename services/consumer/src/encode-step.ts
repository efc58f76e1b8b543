import { RejectReason } from './errors.js';
import { encodeEventRow } from './row-binary.js';
import type { Validated } from './validate-step.js';
import { deadLetter, ROW, type Step } from './step.js';

/**
 * A validated event as its RowBinary row, appended to the insert body. There is no enrichment
 * before it: the ingest already normalised everything (currency conversion, A/B group, event
 * id, received_at), and recomputing any of it here would let two services disagree.
 */
export function createEncodeStep(): Step<Validated, never> {
  return {
    name: 'encode',
    run({ rows, event }) {
      const start = rows.pos;
      try {
        encodeEventRow(rows, event);
        return ROW;
      } catch (err) {
        // A validated event the encoder cannot write is a bug, not a reason to stall the
        // partition; nor may half a row stay in the body.
        rows.pos = start;
        return deadLetter(RejectReason.Internal, (err as Error).message);
      }
    },
  };
}
