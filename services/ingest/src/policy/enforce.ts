import type { BusMessage } from '@chatlytics/bus';
import { encodeSetAsideEvent, encodeStoredEvent, setAsideReason, type SetAsideReason, type StoredEvent, type TrackingData } from '@chatlytics/events';
import { TrackError } from '../errors.js';
import type { ChatbotPolicySource } from './chatbot-policy.js';

export interface Enforced {
  message: BusMessage;
  /** Why the purchase was set aside, when it was (counted by the caller once the event is durable). */
  setAside?: SetAsideReason;
}

/**
 * A normalised event checked against its chatbot's settings (services/ingest/README.md,
 * "Per-chatbot origins" and "Purchases that do not count"), as its bus message:
 * - a browser request (Origin header) from an origin the chatbot does not allow: 403
 *   ANALYTICS_003 (thrown); a request without Origin (a server) is not checked;
 * - a purchase that is implausible, or unsigned/badly signed when the chatbot requires
 *   signatures, is published set aside (the consumer records it in `events_rejected`).
 * The settings are read only when one of the checks applies: an ordinary event from a server
 * costs nothing.
 */
export async function enforce(policies: ChatbotPolicySource, event: StoredEvent, data: TrackingData, origin: string | undefined): Promise<Enforced> {
  if (origin === undefined && event.event !== 'purchase') return { message: encodeStoredEvent(event) };
  const policy = await policies.policyOf(event.chatbot_id);
  if (origin !== undefined && !policy.origins.isAllowed(origin)) throw new TrackError('ANALYTICS_003');
  const reason = setAsideReason(event, (data as { signature?: unknown }).signature, policy);
  if (reason === undefined) return { message: encodeStoredEvent(event) };
  return { message: encodeSetAsideEvent(event, reason), setAside: reason };
}
