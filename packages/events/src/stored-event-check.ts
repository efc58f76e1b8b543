import { Compile } from 'typebox/compile';
import { collectErrors, toFieldErrors, type FieldErrors } from './field-errors.js';
import { StoredEvent } from './stored-event.js';

/** Compiled once: the consumer re-checks every message it takes off the bus. */
export const storedEventValidator = Compile(StoredEvent);

export type StoredEventDecoding = { ok: true; event: StoredEvent } | { ok: false; reason: 'malformed_json' | 'invalid_event'; errors: FieldErrors };

/** True when `value` has exactly the StoredEvent shape (the consumer's re-validation). */
export function isStoredEvent(value: unknown): value is StoredEvent {
  return storedEventValidator.Check(value);
}

/** Parses and checks one bus message value; a refusal carries the reason for events_rejected. */
export function decodeStoredEvent(bytes: Buffer | string): StoredEventDecoding {
  let value: unknown;
  try {
    value = JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed_json', errors: { body: ['The message is not valid JSON.'] } };
  }
  if (storedEventValidator.Check(value)) return { ok: true, event: value };
  return { ok: false, reason: 'invalid_event', errors: toFieldErrors(StoredEvent, collectErrors(storedEventValidator, value)) };
}

/** The bus message for a stored event: keyed by token so one user's events stay in order. */
export function encodeStoredEvent(event: StoredEvent): { key: string; value: Buffer } {
  return { key: event.token, value: Buffer.from(JSON.stringify(event)) };
}
