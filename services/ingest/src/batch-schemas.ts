import { trackBodySchema, trackResponseSchema } from './schemas.js';

/** Limits of POST /api/analytics/batch: what the tracker sends at most in one request. */
export const BATCH_LIMITS = Object.freeze({ maxEvents: 100, maxBodyBytes: 1024 * 1024 });

export const batchBodySchema = {
  type: 'object',
  description: `Up to ${BATCH_LIMITS.maxEvents} tracking events, ${BATCH_LIMITS.maxBodyBytes} bytes in all, as application/json or text/plain JSON. `
    + 'Each event is validated exactly like the body of POST /api/analytics/track; give each a `data.event_id` (UUID) so a retried batch is stored once.',
  properties: {
    events: { type: 'array', maxItems: BATCH_LIMITS.maxEvents, items: trackBodySchema },
    dropped: { type: 'integer', minimum: 0, description: 'Events the client dropped from its full queue since its last accepted batch (counted in a metric)' },
  },
  required: ['events'],
} as const;

export const batchResponseSchema = {
  ...trackResponseSchema,
  200: {
    type: 'object',
    description: 'Every accepted event is durable in the bus; rejected events are final (a client must not resend them)',
    properties: {
      success: { type: 'boolean', const: true },
      accepted: { type: 'integer', minimum: 0 },
      rejected: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            index: { type: 'integer', description: 'Position in `events`' },
            code: { type: 'string', enum: ['ANALYTICS_001', 'ANALYTICS_002', 'ANALYTICS_005'], description: 'Why, as the single-event route would refuse it (ANALYTICS_005 is its 422)' },
            errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'Messages per field' },
          },
          required: ['index', 'code', 'errors'],
        },
      },
      holdout: {
        type: 'boolean',
        description: 'Only when an accepted event\'s chatbot runs a holdout: whether the first such event\'s visitor is held out (the assistant must stay hidden). Computed by the ingest (services/ingest/README.md, "Holdout")',
      },
    },
    required: ['success', 'accepted', 'rejected'],
  },
  400: { ...trackResponseSchema[400], description: `ANALYTICS_001: the body is not {"events": [...]} or not JSON; ANALYTICS_002: more than ${BATCH_LIMITS.maxEvents} events or over ${BATCH_LIMITS.maxBodyBytes} bytes` },
  503: { ...trackResponseSchema[503], description: 'ANALYTICS_004: the accepted events could not all be made durable; resend the whole batch after Retry-After seconds' },
} as const;
