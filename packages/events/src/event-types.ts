/**
 * The event types the tracking endpoint accepts (see the event types and EUR rates in services/ingest/README.md), in the documented order.
 * `tracktrans` is the legacy name of `purchase` and is stored as `purchase` (see the stored-event rules in services/ingest/README.md).
 */
export const TRACKED_EVENTS = [
  'visitor',
  'popup_displayed',
  'popup_opened',
  'bot_open',
  'convo_started',
  'message_sent',
  'message_like',
  'message_dislike',
  'click_through',
  'added_to_cart',
  'go_to_cart',
  'purchase',
  'error',
] as const;
export type TrackedEvent = (typeof TRACKED_EVENTS)[number];

export const EVENT_ALIASES: Readonly<Record<string, TrackedEvent>> = Object.freeze({ tracktrans: 'purchase' });

/** Every name a client may send: the stored types plus their legacy aliases. */
export const ACCEPTED_EVENT_NAMES: readonly string[] = [...TRACKED_EVENTS, ...Object.keys(EVENT_ALIASES)];

const canonical = new Map<string, TrackedEvent>([
  ...TRACKED_EVENTS.map((e) => [e, e] as const),
  ...Object.entries(EVENT_ALIASES),
]);

/** The stored name of an accepted event, or undefined for an unknown one. Case-sensitive, as sent by the widget. */
export function canonicalEventName(name: string): TrackedEvent | undefined {
  return canonical.get(name);
}
