import type { ConsumedMessage } from '@chatlytics/bus';
import { RowWriter } from '../src/row-binary.js';
import type { Incoming } from '../src/step.js';

/** A message as the bus hands it over (partition 2, key k), from bytes or text. */
export const message = (value: Buffer | string, offset = '7'): ConsumedMessage =>
  ({ partition: 2, offset, key: 'k', value: Buffer.isBuffer(value) ? value : Buffer.from(value), timestamp: 1_700_000_000_000 });

/** A message entering the pipeline, with an empty insert body. */
export const incoming = (value: Buffer | string): Incoming => ({ message: message(value), rows: new RowWriter(16) });
