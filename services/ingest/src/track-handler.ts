import type { FastifyReply, FastifyRequest } from 'fastify';
import { normalizeEvent, validateTrackingBody } from '@chatlytics/events';
import { BUS_RETRY_AFTER_SECONDS, TrackError } from './errors.js';
import type { IngestMetrics } from './metrics.js';
import { PublisherOverloadedError, type EventPublisher } from './publisher.js';
import type { ChatbotPolicySource } from './policy/chatbot-policy.js';
import { enforce } from './policy/enforce.js';

/** After an overload refusal: the queue drains in well under a second at the bus's pace. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

export interface TrackHandlerDeps {
  publisher: Pick<EventPublisher, 'publish'>;
  metrics: Pick<IngestMetrics, 'accepted' | 'setAside'>;
  policies: ChatbotPolicySource;
  clock: () => Date;
  hashClient: (ip: string) => string;
}

/**
 * One handler for every alias and both forms: the GET form's query and the POST body carry the
 * same fields, so they go through the same validation and answer identically (see the tracking error rules in services/ingest/README.md).
 * A POST without a body falls back to its query string (old widgets POST to `/api/save?e=…`).
 */
export function createTrackHandler(deps: TrackHandlerDeps) {
  return async function track(request: FastifyRequest, reply: FastifyReply): Promise<{ success: true }> {
    const input = request.method === 'GET' || request.body === undefined ? request.query : request.body;
    const result = validateTrackingBody(input);
    if (!result.ok) throw new TrackError(result.code, { errors: result.errors });

    const event = normalizeEvent(result.value, {
      receivedAt: deps.clock(),
      userAgentHeader: request.headers['user-agent'],
      // request.ip honours X-Forwarded-For only when the server's trustProxy lists the proxy.
      clientHash: deps.hashClient(request.ip),
      log: request.log,
    });
    const { message, setAside } = await enforce(deps.policies, event, result.value.data, request.headers.origin);
    try {
      await deps.publisher.publish(message);
    } catch (err) {
      // Overload is answered many times a second while it lasts: counted in metrics, not logged.
      if (err instanceof PublisherOverloadedError) throw new TrackError('ANALYTICS_004', { retryAfter: OVERLOAD_RETRY_AFTER_SECONDS, cause: err });
      request.log.warn({ err, eventId: event.event_id }, 'event not durable: answering 503');
      throw new TrackError('ANALYTICS_004', { retryAfter: BUS_RETRY_AFTER_SECONDS, cause: err });
    }
    deps.metrics.accepted.inc();
    if (setAside) deps.metrics.setAside.inc({ reason: setAside });
    reply.code(200);
    return { success: true };
  };
}
