import { canonicalEventName, type TrackedEvent } from './event-types.js';
import { collectErrors, toFieldErrors, type FieldErrors } from './field-errors.js';
import { parseJsonSafely } from './safe-json.js';
import { TRACKING_LIMITS, TrackingBody, trackingBodyValidator, type TrackingData } from './tracking-schema.js';

/** A tracking request that passed every check, ready for normalizeEvent. */
export interface TrackingEvent {
  /** The stored name: `tracktrans` already mapped to `purchase`. */
  event: TrackedEvent;
  token: string;
  ab_test: boolean;
  /** The payload object ({} when absent). */
  data: TrackingData;
  /** `data` JSON-encoded once, reused as the stored raw payload ('{}' when absent). */
  rawData: string;
}

/**
 * Why a body was refused, in the classification of the tracking error rules in services/ingest/README.md:
 * ANALYTICS_001 (400) the payload is not what a tracking call looks like (body or data not an
 * object, `d` not JSON of an object); ANALYTICS_002 (400) data over 50,000 bytes JSON-encoded;
 * ANALYTICS_005 (422) a field is missing or invalid, or the event type is unknown.
 */
export type TrackingRejection = {
  ok: false;
  code: 'ANALYTICS_001' | 'ANALYTICS_002' | 'ANALYTICS_005';
  status: 400 | 422;
  errors: FieldErrors;
};
export type TrackingValidation = { ok: true; value: TrackingEvent } | TrackingRejection;

const invalidPayload = (field: string, message: string): TrackingRejection =>
  ({ ok: false, code: 'ANALYTICS_001', status: 400, errors: { [field]: [message] } });

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

// UTF-8 needs at most 3 bytes per UTF-16 code unit: below this length no byte count is needed.
const SURELY_SMALL = Math.floor(TRACKING_LIMITS.dataMaxBytes / 3);

/** Reads `data`, or the legacy `d` (URL-encoded JSON text in the GET form; an object is accepted too). */
function readData(raw: Record<string, unknown>): { field: string; value: unknown } | TrackingRejection {
  if (raw.data !== undefined) return { field: 'data', value: raw.data };
  const d = raw.d;
  if (typeof d !== 'string') return { field: 'd', value: d };
  // An empty `d=` is how some widgets spell "no data".
  if (d === '') return { field: 'd', value: undefined };
  try {
    return { field: 'd', value: parseJsonSafely(d) };
  } catch {
    return invalidPayload('d', 'The d field must be URL-encoded JSON of an object.');
  }
}

/**
 * Validates a tracking body (POST JSON body, form body or GET query: the legacy names e, u, d
 * are accepted, the canonical names win when both are present) and classifies any refusal.
 * `null` for `data` or any optional field means "absent". Pure: no I/O, no clock.
 */
export function validateTrackingBody(body: unknown): TrackingValidation {
  // No body at all (POST without content) is a request with every field missing: a 422.
  const raw = body === undefined ? {} : body;
  if (!isPlainObject(raw)) return invalidPayload('body', 'The request body must be a JSON object.');

  const read = readData(raw);
  if ('ok' in read) return read;
  const data = read.value ?? undefined;
  if (data !== undefined && !isPlainObject(data)) {
    return invalidPayload(read.field, `The ${read.field} field must be an object.`);
  }
  let rawData: string;
  try {
    rawData = data === undefined ? '{}' : JSON.stringify(data);
  } catch {
    // Only a nesting deeper than the call stack gets here (JSON input has no cycles or BigInts).
    return invalidPayload(read.field, `The ${read.field} field is nested too deeply.`);
  }
  if (rawData.length > SURELY_SMALL && Buffer.byteLength(rawData, 'utf8') > TRACKING_LIMITS.dataMaxBytes) {
    return {
      ok: false, code: 'ANALYTICS_002', status: 400,
      errors: { [read.field]: [`The ${read.field} field must not be greater than ${TRACKING_LIMITS.dataMaxBytes} bytes JSON-encoded.`] },
    };
  }

  const candidate = {
    event: raw.event !== undefined ? raw.event : raw.e,
    token: raw.token !== undefined ? raw.token : raw.u,
    data,
    ab_test: raw.ab_test ?? undefined,
  };
  if (candidate.data === undefined) delete candidate.data;
  if (candidate.ab_test === undefined) delete candidate.ab_test;

  const valid = trackingBodyValidator.Check(candidate);
  const errors = valid ? {} : toFieldErrors(TrackingBody, collectErrors(trackingBodyValidator, candidate));
  const event = typeof candidate.event === 'string' ? canonicalEventName(candidate.event) : undefined;
  if (typeof candidate.event === 'string' && !event && !errors.event) {
    errors.event = ['The selected event is invalid.'];
  }
  if (!valid || !event) {
    // Never a 422 without a reason: a failed check the mapper could not attribute names the body.
    if (Object.keys(errors).length === 0) errors.body = ['The request body is invalid.'];
    return { ok: false, code: 'ANALYTICS_005', status: 422, errors };
  }

  const abTest = candidate.ab_test;
  return {
    ok: true,
    value: {
      event,
      token: candidate.token as string,
      ab_test: abTest === true || abTest === 1 || abTest === '1' || abTest === 'true',
      data: (data ?? {}) as TrackingData,
      rawData,
    },
  };
}
