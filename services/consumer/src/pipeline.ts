import { isRetriable } from '@chatlytics/core';
import { createCanonicalStep } from './canonical-step.js';
import { createDecodeStep, type Decoded } from './decode-step.js';
import type { ErasedTokenList } from '@chatlytics/clickhouse';
import { createErasedStep } from './erased-step.js';
import { createEncodeStep } from './encode-step.js';
import { createSetAsideStep } from './set-aside-step.js';
import { createOrderStep } from './order-step.js';
import type { StoredOrder, StoredRefund } from '@chatlytics/events';
import { RejectReason } from './errors.js';
import type { ConsumerMetrics } from './metrics.js';
import { deadLetter, retry, type DropReason, type SetAside, type Incoming, type Step, type StepResult } from './step.js';
import { createValidateStep, type Validated } from './validate-step.js';

/**
 * A step as the runner holds it: each one's input is the previous one's output, which
 * createMessageSteps checks (a method's parameter is bivariant, so any step fits here).
 */
export type AnyStep = Step<unknown, unknown>;

/**
 * The steps every message goes through, in order (after the erased visitors' drop, when the
 * caller reads `erased_tokens`). The fast path is first: it turns what the
 * ingest wrote, byte for byte, into a row; anything else goes on to decode → validate →
 * order (an order state goes to `orders`) → validate → set-aside (a purchase the ingest set
 * aside goes to `events_rejected`) → encode.
 */
export function createMessageSteps(erased?: () => ErasedTokenList): AnyStep[] {
  const chain: [Step<Incoming, Incoming>, Step<Incoming, Decoded>, Step<Decoded, Decoded>, Step<Decoded, Validated>, Step<Validated, Validated>, Step<Validated, never>] = [
    createCanonicalStep(), createDecodeStep(), createOrderStep(), createValidateStep(), createSetAsideStep(), createEncodeStep(),
  ];
  // The erased visitors' messages leave before any row is written (erased-step.ts).
  return erased ? [createErasedStep(erased), ...chain] : chain;
}

/** How a message left the pipeline; a dead letter names the step that produced it. */
export type Outcome =
  | { kind: 'row' }
  | { kind: 'drop'; reason: DropReason }
  | { kind: 'dead-letter'; reason: RejectReason; error: string; step: string; setAside?: SetAside }
  | { kind: 'retry'; error: unknown }
  | { kind: 'order'; order?: StoredOrder; refunds: StoredRefund[] };

export type PipelineMetrics = Pick<ConsumerMetrics, 'drops' | 'stepSeconds' | 'stepMessages'>;

/**
 * The runner: a loop over the steps that stops at the first result that is not ok. A step
 * that throws is judged here, once for all: a retriable error retries the batch, anything else
 * is a bug and makes the message poison (a dead letter naming the step) rather than stall its
 * partition.
 *
 * Time is summed per step and added to /metrics once per batch (report()). Nearly every message
 * ends at the first step (the fast path, ~1 µs), where a clock read per message would cost about
 * a tenth of the step itself: that step is not timed message by message but gets the batch's
 * time minus the later steps' (so it also carries the runner's own few ns per message). Every
 * later step is timed exactly.
 */
export class MessagePipeline {
  readonly names: readonly string[];
  /** The step that ended the last message run. */
  endedBy: string;
  private readonly ms: Float64Array;
  private readonly entered: Float64Array;
  /** When the batch being run started (performance.now()), or -1 before its first message. */
  private batchStarted = -1;

  constructor(private readonly steps: readonly AnyStep[], private readonly metrics?: PipelineMetrics) {
    this.names = steps.map((s) => s.name);
    this.endedBy = this.names[0];
    this.ms = new Float64Array(steps.length);
    this.entered = new Float64Array(steps.length);
  }

  /** Runs the steps in order until one returns anything but ok. */
  run(input: Incoming): Outcome {
    if (this.batchStarted < 0) this.batchStarted = performance.now();
    let result = this.attempt(0, input);
    this.entered[0]++;
    if (result.kind !== 'ok') return this.end(0, result);
    let started = performance.now();
    for (let k = 1; k < this.steps.length; k++) {
      result = this.attempt(k, result.value);
      const now = performance.now();
      this.ms[k] += now - started;
      this.entered[k]++;
      started = now;
      if (result.kind !== 'ok') return this.end(k, result);
    }
    // The last step never answers ok: a list that ends without a row is a bug.
    return this.end(this.steps.length - 1, { kind: 'dead-letter', reason: RejectReason.Internal, error: 'no step made a row of the message' });
  }

  /** Adds the batch's time in each step (and the messages that entered it) to /metrics, then starts from zero. */
  report(): void {
    if (this.batchStarted < 0) return;
    let later = 0;
    for (let k = 1; k < this.steps.length; k++) later += this.ms[k];
    this.ms[0] = Math.max(0, performance.now() - this.batchStarted - later);
    this.batchStarted = -1;
    for (let k = 0; k < this.steps.length; k++) {
      if (this.entered[k] > 0) {
        this.metrics?.stepSeconds.inc({ step: this.names[k] }, this.ms[k] / 1000);
        this.metrics?.stepMessages.inc({ step: this.names[k] }, this.entered[k]);
      }
      this.ms[k] = 0;
      this.entered[k] = 0;
    }
  }

  private attempt(k: number, value: unknown): StepResult<unknown> {
    try {
      return this.steps[k].run(value);
    } catch (err) {
      return isRetriable(err) ? retry(err) : deadLetter(RejectReason.Internal, (err as Error).message);
    }
  }

  private end(k: number, result: Exclude<StepResult<unknown>, { kind: 'ok' }>): Outcome {
    this.endedBy = this.names[k];
    if (result.kind === 'dead-letter') return { ...result, step: this.names[k] };
    if (result.kind === 'drop') this.metrics?.drops.inc({ reason: result.reason });
    return result;
  }
}

export const createMessagePipeline = (steps: readonly AnyStep[], metrics?: PipelineMetrics) => new MessagePipeline(steps, metrics);
