import { Compile } from 'typebox/compile';
import { collectErrors, toFieldErrors, type FieldErrors } from './field-errors.js';
import { StoredEvent } from './stored-event.js';

/** Compiled once: the consumer re-checks every message it takes off the bus. */
export const storedEventValidator = Compile(StoredEvent);

export type StoredEventDecoding = { ok: true; event: StoredEvent } | { ok: false; reason: 'malformed_json' | 'invalid_event'; errors: FieldErrors };

/** The number in s[from, to), digits only (the pattern was checked); no substring allocated. */
const digits = (s: string, from: number, to: number) => {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + s.charCodeAt(i) - 48;
  return n;
};

/**
 * The schema's pattern only fixes received_at's shape; ClickHouse refuses an impossible date
 * ('2026-13-45') and would clamp one outside DateTime64's range (1900–2299) to a different
 * time. Checked separately so such an event is dead-lettered as invalid, not left for the
 * insert (or a parameterised lookup of its time range) to fail on. Expects the pattern shape.
 */
export function isValidReceivedAt(text: string): boolean {
  const y = digits(text, 0, 4);
  const mo = digits(text, 5, 7);
  const d = digits(text, 8, 10);
  if (y < 1900 || y > 2299 || mo < 1 || mo > 12 || d < 1) return false;
  if (digits(text, 11, 13) > 23 || digits(text, 14, 16) > 59 || digits(text, 17, 19) > 59) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = mo === 2 ? (leap ? 29 : 28) : mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
  return d <= days;
}

/** received_at text (already valid) → epoch ms, without Date's string parser (the consumer's hot path). */
export function receivedAtMs(text: string): number {
  return Date.UTC(digits(text, 0, 4), digits(text, 5, 7) - 1, digits(text, 8, 10), digits(text, 11, 13), digits(text, 14, 16), digits(text, 17, 19), digits(text, 20, 23));
}

const BAD_RECEIVED_AT = 'is not a real UTC time between 1900 and 2299';

/** True when `value` has exactly the StoredEvent shape (the consumer's re-validation). */
export function isStoredEvent(value: unknown): value is StoredEvent {
  return storedEventValidator.Check(value) && isValidReceivedAt(value.received_at);
}

/** Why a value that passed the schema is still not a storable event, if it is not. */
export function storedEventProblem(event: StoredEvent): { field: string; message: string } | undefined {
  return isValidReceivedAt(event.received_at) ? undefined : { field: 'received_at', message: BAD_RECEIVED_AT };
}

/** Parses and checks one bus message value; a refusal carries the reason for events_rejected. */
export function decodeStoredEvent(bytes: Buffer | string): StoredEventDecoding {
  let value: unknown;
  try {
    value = JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed_json', errors: { body: ['The message is not valid JSON.'] } };
  }
  if (storedEventValidator.Check(value)) {
    const problem = storedEventProblem(value);
    if (!problem) return { ok: true, event: value };
    return { ok: false, reason: 'invalid_event', errors: { [problem.field]: [`The value ${problem.message}.`] } };
  }
  return { ok: false, reason: 'invalid_event', errors: toFieldErrors(StoredEvent, collectErrors(storedEventValidator, value)) };
}

/** The bus message for a stored event: keyed by token so one user's events stay in order. */
export function encodeStoredEvent(event: StoredEvent): { key: string; value: Buffer } {
  return { key: event.token, value: Buffer.from(JSON.stringify(event)) };
}
