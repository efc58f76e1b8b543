import type { ConsumedMessage } from '@chatlytics/bus';
import { RejectReason } from './errors.js';
import type { RowWriter } from './row-binary.js';
import { deadLetter, drop, DropReason, ok, type Incoming, type Step } from './step.js';

export interface Decoded {
  message: ConsumedMessage;
  rows: RowWriter;
  value: Record<string, unknown>;
}

/** Bytes → object. An empty value (a Kafka tombstone) carries no event: dropped, not poison. */
export function createDecodeStep(): Step<Incoming, Decoded> {
  return {
    name: 'decode',
    run({ message, rows }) {
      if (message.value.length === 0) return drop(DropReason.Empty);
      let value: unknown;
      try {
        value = JSON.parse(message.value.toString('utf8'));
      } catch (err) {
        return deadLetter(RejectReason.Undecodable, (err as Error).message);
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        return deadLetter(RejectReason.Undecodable, 'the value is JSON but not an object');
      }
      return ok({ message, rows, value: value as Record<string, unknown> });
    },
  };
}
