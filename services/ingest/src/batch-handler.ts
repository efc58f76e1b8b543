import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { BusMessage } from '@chatlytics/bus';
import { normalizeEvent, validateTrackingBody, type FieldErrors } from '@chatlytics/events';
import { BATCH_LIMITS, batchBodySchema, batchResponseSchema } from './batch-schemas.js';
import { answerPreflight } from './cors.js';
import { BUS_RETRY_AFTER_SECONDS, TrackError } from './errors.js';
import type { IngestMetrics } from './metrics.js';
import type { EventPublisher } from './publisher.js';
import type { ChargeMore } from './rate-limit.js';
import type { ChatbotPolicySource } from './policy/chatbot-policy.js';
import { enforce, type Enforced } from './policy/enforce.js';
import { preflightResponseSchema } from './schemas.js';

export const BATCH_PATH = '/api/analytics/batch';

export interface BatchRouteDeps {
  publisher: Pick<EventPublisher, 'publish'>;
  metrics: Pick<IngestMetrics, 'accepted' | 'rejected' | 'setAside'>;
  policies: ChatbotPolicySource;
  registry: Registry;
  clock: () => Date;
  hashClient: (ip: string) => string;
  /** The per-client budget: the batch's events beyond the first, charged before any is validated. */
  chargeMore: ChargeMore;
}

interface Rejected { index: number; code: 'ANALYTICS_001' | 'ANALYTICS_002' | 'ANALYTICS_005'; errors: FieldErrors }

const droppedCounter = (registry: Registry) => (registry.getSingleMetric('chatlytics_ingest_tracker_dropped_total') as Counter<never> | undefined)
  ?? new Counter({ name: 'chatlytics_ingest_tracker_dropped_total', help: 'Events trackers reported dropping from their full queue', registers: [registry] });

/**
 * POST /api/analytics/batch, inside the tracking plugin's scope (its body parsers, error
 * handler, origin check and rate limit apply: a batch of N events costs N of the per-client
 * budget, and one that does not fit is refused whole with 429, as the tracker resends it whole).
 * Each event goes through the single route's validation and normalisation; the 200 is sent only
 * once every accepted event is durable, so a client may forget the batch on a 200 and must
 * resend all of it otherwise (the events' `data.event_id` makes the resend harmless).
 */
export function registerBatchRoute(app: FastifyInstance, deps: BatchRouteDeps): void {
  const dropped = droppedCounter(deps.registry);

  async function batch(request: FastifyRequest, reply: FastifyReply) {
    const body = request.body as { events?: unknown; dropped?: unknown } | null | undefined;
    if (body === null || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(body.events)) {
      throw new TrackError('ANALYTICS_001', { errors: { events: ['The body must be a JSON object with an events array.'] } });
    }
    if (body.events.length > BATCH_LIMITS.maxEvents) {
      throw new TrackError('ANALYTICS_002', { errors: { events: [`A batch may hold at most ${BATCH_LIMITS.maxEvents} events.`] } });
    }
    deps.chargeMore(request, reply, body.events.length);
    if (Number.isSafeInteger(body.dropped) && (body.dropped as number) > 0) {
      dropped.inc(body.dropped as number);
      request.log.warn({ dropped: body.dropped }, 'a tracker dropped events from its full queue');
    }

    const ctx = {
      receivedAt: deps.clock(),
      userAgentHeader: request.headers['user-agent'],
      clientHash: deps.hashClient(request.ip),
      log: request.log,
    };
    const rejected: Rejected[] = [];
    const checks: Promise<Enforced>[] = [];
    const origin = request.headers.origin;
    body.events.forEach((input, index) => {
      const result = validateTrackingBody(input);
      if (result.ok) checks.push(enforce(deps.policies, normalizeEvent(result.value, ctx), result.value.data, origin));
      else rejected.push({ index, code: result.code, errors: result.errors });
    });
    // Per request: one event naming a chatbot that refuses this origin refuses the whole batch
    // (403 ANALYTICS_003), as the track route would; a tracker's batch comes from one page.
    const enforced = await Promise.all(checks);
    const messages: BusMessage[] = enforced.map((e) => e.message);
    try {
      // The publisher gathers these into one bus write (with other requests' events).
      await Promise.all(messages.map((m) => deps.publisher.publish(m)));
    } catch (err) {
      request.log.warn({ err, events: messages.length }, 'batch not durable: answering 503');
      throw new TrackError('ANALYTICS_004', { retryAfter: BUS_RETRY_AFTER_SECONDS, cause: err });
    }
    deps.metrics.accepted.inc(messages.length);
    for (const e of enforced) if (e.setAside) deps.metrics.setAside.inc({ reason: e.setAside });
    for (const r of rejected) deps.metrics.rejected.inc({ reason: r.code });
    reply.code(200);
    // The tracker's batch is one visitor's: its arm tells the widget whether to stay hidden.
    const arm = enforced.find((e) => e.holdout)?.holdout;
    return { success: true, accepted: messages.length, rejected, ...(arm ? { holdout: arm === 'holdout' } : {}) };
  }

  app.post(BATCH_PATH, {
    bodyLimit: BATCH_LIMITS.maxBodyBytes,
    schema: { tags: ['tracking'], summary: 'Track a batch of events (the tracker script)', body: batchBodySchema, response: batchResponseSchema },
  }, batch);
  app.options(BATCH_PATH, {
    config: { rateLimit: false },
    schema: { tags: ['tracking'], summary: 'CORS preflight', response: preflightResponseSchema },
  }, answerPreflight);
}
