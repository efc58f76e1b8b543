import { transcodeCanonicalEvent } from './canonical-transcode.js';
import { ok, ROW, type Incoming, type Step } from './step.js';

export const CANONICAL_STEP = 'canonical';

/**
 * The fast path, first: a value that is byte for byte what the ingest writes becomes its row
 * straight from the JSON bytes (canonical-transcode.ts, a WebAssembly byte loop). Anything
 * else is passed on unchanged to the general steps, which alone decide what is poison: this
 * step never drops or dead-letters.
 */
export function createCanonicalStep(): Step<Incoming, Incoming> {
  return {
    name: CANONICAL_STEP,
    run(input) {
      const start = input.rows.pos;
      try {
        if (transcodeCanonicalEvent(input.message.value, input.rows)) return ROW;
      } catch {
        // A bug in the fast path must not stall the partition: the general steps decide instead.
        input.rows.pos = start;
      }
      return ok(input);
    },
  };
}
