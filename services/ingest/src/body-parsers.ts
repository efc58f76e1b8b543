import type { FastifyInstance } from 'fastify';
import { parseJsonSafely } from '@chatlytics/events';
import { TrackError } from './errors.js';

/**
 * A tracking body may be several times larger than its 50,000-byte `data` once re-encoded by
 * the client (pretty printing, \uXXXX escapes turn a 3-byte character into 6 bytes): 128 KiB
 * lets every `data` the documented limits allow through, so the precise 50,000-byte rule (ANALYTICS_002)
 * decides, while anything bigger is cut off before it is buffered whole.
 */
export const TRACK_BODY_LIMIT = 128 * 1024;

function parseJsonBody(_req: unknown, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) {
  try {
    done(null, parseJsonSafely(typeof body === 'string' ? body : body.toString('utf8')));
  } catch (err) {
    const why = (err as Error).name === 'PoisonedJsonError'
      ? 'The request body contains a forbidden property name (__proto__ or constructor.prototype).'
      : 'The request body is not valid JSON.';
    done(new TrackError('ANALYTICS_001', { errors: { body: [why] }, cause: err }));
  }
}

/**
 * Body parsing for the tracking routes only (this plugin's scope):
 * - application/json, and any other or missing content type, is read as JSON text:
 *   navigator.sendBeacon sends a string as text/plain (which avoids a CORS preflight),
 *   and old widgets send no content type at all;
 * - application/x-www-form-urlencoded is read as fields (the legacy e, u, d, ab_test).
 * Fastify's own parser is replaced so malformed JSON and prototype poisoning both become
 * ANALYTICS_001 from one place, using the same safe parser as the GET form's `d`.
 */
export function registerTrackBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: TRACK_BODY_LIMIT }, parseJsonBody);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: TRACK_BODY_LIMIT }, (_req, body, done) => {
    // fromEntries defines own properties: a "__proto__" field name cannot reach a prototype.
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: TRACK_BODY_LIMIT }, parseJsonBody);
}
