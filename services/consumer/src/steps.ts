import { storedEventProblem, storedEventValidator, type StoredEvent } from '@chatlytics/events';
import type { ConsumedMessage } from '@chatlytics/bus';
import { isRetriable } from '@chatlytics/core';
import { RejectReason } from './errors.js';

/**
 * The per-message steps of the pipeline (PostHog ingestion-pipeline style). Each returns
 * ok (go on), drop (ignore silently, commit) or dead-letter (record as poison, commit).
 * A step that THROWS a retriable error stops the batch so that it is retried uncommitted.
 */
export type StepResult<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'drop'; reason: string }
  | { kind: 'dead-letter'; reason: RejectReason; error: string };

const ok = <T>(value: T): StepResult<T> => ({ kind: 'ok', value });
const deadLetter = (reason: RejectReason, error: string): StepResult<never> => ({ kind: 'dead-letter', reason, error });

export interface Decoded {
  message: ConsumedMessage;
  value: Record<string, unknown>;
}

/** Bytes → object. An empty value (a Kafka tombstone) carries no event: dropped, not poison. */
export function decode(message: ConsumedMessage): StepResult<Decoded> {
  if (message.value.length === 0) return { kind: 'drop', reason: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(message.value.toString('utf8'));
  } catch (err) {
    return deadLetter(RejectReason.Undecodable, (err as Error).message);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return deadLetter(RejectReason.Undecodable, 'the value is JSON but not an object');
  }
  return ok({ message, value: value as Record<string, unknown> });
}

export interface Validated {
  message: ConsumedMessage;
  event: StoredEvent;
}

/** Against the very schema the ingest serialises with; the first error names the field. */
export function validate(decoded: Decoded): StepResult<Validated> {
  if (storedEventValidator.Check(decoded.value)) {
    const problem = storedEventProblem(decoded.value);
    if (!problem) return ok({ message: decoded.message, event: decoded.value });
    return deadLetter(RejectReason.SchemaInvalid, `/${problem.field}: ${problem.message}`);
  }
  const first = storedEventValidator.Errors(decoded.value)[0];
  const where = first?.instancePath || '/';
  return deadLetter(RejectReason.SchemaInvalid, `${where}: ${first?.message ?? 'does not match the StoredEvent schema'}`);
}

/** A validated event and the message it came from (its origin, should ClickHouse refuse the row). */
export interface PipelineRow {
  /** The event itself: toSegment encodes it into the insert body (row-binary.ts) and lets it go. */
  event: StoredEvent;
  /** As it came off the bus: partition, offset, key, bus time, and the bytes a refused row dead-letters. */
  message: ConsumedMessage;
}

/**
 * The ingest already normalised everything (currency conversion, A/B group, event id,
 * received_at); recomputing any of it here would let two services disagree. Enrichment is
 * therefore only pairing the event with its origin. The writer reads ids and times from the
 * encoded row itself (segment.ts), the same for both decode paths.
 */
export function enrich(validated: Validated): StepResult<PipelineRow> {
  const { message, event } = validated;
  return ok({ event, message });
}

/** decode → validate → enrich for one message. A non-retriable throw (a bug) becomes poison. */
export function runSteps(message: ConsumedMessage): StepResult<PipelineRow> {
  try {
    const decoded = decode(message);
    if (decoded.kind !== 'ok') return decoded;
    const validated = validate(decoded.value);
    if (validated.kind !== 'ok') return validated;
    return enrich(validated.value);
  } catch (err) {
    if (isRetriable(err)) throw err;
    return deadLetter(RejectReason.Internal, (err as Error).message);
  }
}
