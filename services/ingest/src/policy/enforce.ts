import type { BusMessage } from '@chatlytics/bus';
import {
  createHoldoutAssigner, encodeSetAsideEvent, encodeStoredEvent, setAsideReason, type SetAsideReason, type StoredEvent, type TrackingData,
} from '@chatlytics/events';
import { TrackError } from '../errors.js';
import type { ChatbotPolicySource } from './chatbot-policy.js';

/** One memo per process: a visitor's events repeat its (chatbot, token). */
const assignHoldout = createHoldoutAssigner();

export interface Enforced {
  message: BusMessage;
  /** Why the purchase was set aside, when it was (counted by the caller once the event is durable). */
  setAside?: SetAsideReason;
  /** The event's holdout arm ('' or absent: its chatbot runs no holdout). */
  holdout?: StoredEvent['holdout'];
}

/**
 * A normalised event checked against its chatbot's settings (services/ingest/README.md,
 * "Per-chatbot origins" and "Purchases that do not count"), as its bus message:
 * - a browser request (Origin header) from an origin the chatbot does not allow: 403
 *   ANALYTICS_003 (thrown); a request without Origin (a server) is not checked;
 * - a purchase that is implausible, or unsigned/badly signed when the chatbot requires
 *   signatures, is published set aside (the consumer records it in `events_rejected`).
 * - every event of a chatbot gets its holdout arm (services/ingest/README.md, "Holdout"), computed
 *   here from the token and the chatbot's holdout key and percentage: the client's word on its
 *   arm is never read.
 * The settings come from the policy cache (one map look-up per event while they are fresh); an
 * event without chatbot_id reads them only for an origin or a purchase.
 */
export async function enforce(policies: ChatbotPolicySource, event: StoredEvent, data: TrackingData, origin: string | undefined): Promise<Enforced> {
  if (event.chatbot_id === '' && origin === undefined && event.event !== 'purchase') return { message: encodeStoredEvent(event) };
  const policy = await policies.policyOf(event.chatbot_id);
  if (event.chatbot_id !== '') event.holdout = assignHoldout(policy.holdoutKey, event.chatbot_id, event.token, policy.holdoutPercent);
  if (origin !== undefined && !policy.origins.isAllowed(origin)) throw new TrackError('ANALYTICS_003');
  const reason = setAsideReason(event, (data as { signature?: unknown }).signature, policy);
  if (reason === undefined) return { message: encodeStoredEvent(event), holdout: event.holdout };
  return { message: encodeSetAsideEvent(event, reason), setAside: reason, holdout: event.holdout };
}
