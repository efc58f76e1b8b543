import { isRetriable } from '@chatlytics/core';
import { createCanonicalStep } from './canonical-step.js';
import { createDecodeStep, type Decoded } from './decode-step.js';
import { createEncodeStep } from './encode-step.js';
import { RejectReason } from './errors.js';
import type { ConsumerMetrics } from './metrics.js';
import { deadLetter, retry, type DropReason, type Incoming, type Step, type StepResult } from './step.js';
import { createValidateStep, type Validated } from './validate-step.js';

/**
 * A step as the runner holds it: each one's input is the previous one's output, which
 * createMessageSteps checks (a method's parameter is bivariant, so any step fits here).
 */
export type AnyStep = Step<unknown, unknown>;

/**
 * The steps every message goes through, in order. The fast path is first: it turns what the
 * ingest wrote, byte for byte, into a row; anything else goes on to decode → validate → encode.
 */
export function createMessageSteps(): AnyStep[] {
  const chain: [Step<Incoming, Incoming>, Step<Incoming, Decoded>, Step<Decoded, Validated>, Step<Validated, never>] = [
    createCanonicalStep(), createDecodeStep(), createValidateStep(), createEncodeStep(),
  ];
  return chain;
}

/** How a message left the pipeline; a dead letter names the step that produced it. */
export type Outcome =
  | { kind: 'row' }
  | { kind: 'drop'; reason: DropReason }
  | { kind: 'dead-letter'; reason: RejectReason; error: string; step: string }
  | { kind: 'retry'; error: unknown };

export type PipelineMetrics = Pick<ConsumerMetrics, 'drops' | 'stepSeconds' | 'stepMessages'>;

export interface MessagePipeline {
  readonly names: readonly string[];
  /** Runs the steps in order until one returns anything but ok. */
  run(input: Incoming): Outcome;
  /** The step that ended the last message run. */
  readonly endedBy: string;
  /** Adds the time spent in each step (and the messages that entered it) to /metrics, then starts from zero. */
  report(): void;
}

/**
 * The runner. A step that throws is judged here, once for all: a retriable error retries the
 * batch, anything else is a bug and makes the message poison (a dead letter naming the step)
 * rather than stall its partition. Time is summed per step and reported per batch, so the
 * per-message cost is a clock read between steps, not a metric update.
 */
export function createMessagePipeline(steps: readonly AnyStep[], metrics?: PipelineMetrics): MessagePipeline {
  const names = steps.map((s) => s.name);
  const ms = new Float64Array(steps.length);
  const entered = new Float64Array(steps.length);
  let ended = 0;

  function run(input: Incoming): Outcome {
    let value: unknown = input;
    let started = performance.now();
    for (let k = 0; k < steps.length; k++) {
      let result: StepResult<unknown>;
      try {
        result = steps[k].run(value);
      } catch (err) {
        result = isRetriable(err) ? retry(err) : deadLetter(RejectReason.Internal, (err as Error).message);
      }
      const now = performance.now();
      ms[k] += now - started;
      entered[k]++;
      started = now;
      if (result.kind === 'ok') {
        value = result.value;
        continue;
      }
      ended = k;
      if (result.kind === 'dead-letter') return { ...result, step: names[k] };
      if (result.kind === 'drop') metrics?.drops.inc({ reason: result.reason });
      return result;
    }
    // The last step never answers ok: a list that ends without a row is a bug.
    ended = steps.length - 1;
    return { kind: 'dead-letter', reason: RejectReason.Internal, error: 'no step made a row of the message', step: names[ended] };
  }

  function report(): void {
    for (let k = 0; k < steps.length; k++) {
      if (entered[k] === 0) continue;
      metrics?.stepSeconds.inc({ step: names[k] }, ms[k] / 1000);
      metrics?.stepMessages.inc({ step: names[k] }, entered[k]);
      ms[k] = 0;
      entered[k] = 0;
    }
  }

  return {
    names,
    run,
    get endedBy() { return names[ended]; },
    report,
  };
}
