import type { BusMessage } from '@chatlytics/bus';
import { clickhouseTime } from '@chatlytics/clickhouse';
import type { RejectedMessage } from './segment.js';

/** The consumer's name in `events_rejected.source` (the ingest records its own refusals too). */
export const REJECT_SOURCE = 'consumer';
/** `events_rejected.source` of a purchase the ingest set aside: the decision was the ingest's. */
export const SET_ASIDE_SOURCE = 'ingest';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Text when the bytes are valid UTF-8 (readable in a console), else base64 (exact bytes). */
function encodePayload(payload: Buffer): { payload: string; payload_encoding: 'utf8' | 'base64' } {
  try {
    return { payload: utf8.decode(payload), payload_encoding: 'utf8' };
  } catch {
    return { payload: payload.toString('base64'), payload_encoding: 'base64' };
  }
}

/**
 * The dead-letter message: a JSON wrapper (reason code, error, the step that found it poison,
 * origin and the original bytes), keyed like the original so one user's poison stays in one
 * partition. A wrapper rather than
 * Kafka headers because the embedded bus carries no headers and a wrapper survives any tool.
 */
export function toDeadLetter(reject: RejectedMessage, stream: string, now = Date.now()): BusMessage {
  const wrapper = {
    reason: reject.reason,
    error: reject.error,
    step: reject.step,
    source: REJECT_SOURCE,
    stream,
    partition: reject.partition,
    offset: reject.offset,
    bus_timestamp: reject.busTimestamp,
    rejected_at: new Date(now).toISOString(),
    ...encodePayload(reject.payload),
  };
  return { key: reject.key ?? '', value: Buffer.from(JSON.stringify(wrapper)) };
}

/** The original bytes of a dead-letter wrapper; undefined when the value is not one of ours. */
export function unwrapDeadLetter(value: Buffer): Buffer | undefined {
  try {
    const w = JSON.parse(value.toString('utf8')) as { payload?: unknown; payload_encoding?: unknown; source?: unknown };
    if (typeof w.payload !== 'string') return undefined;
    return Buffer.from(w.payload, w.payload_encoding === 'base64' ? 'base64' : 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * A row of `events_rejected`. received_at = when the bus accepted the message (for a set-aside
 * purchase, within a second of its own received_at: the app's window counts use this column).
 */
export function toRejectedRow(reject: RejectedMessage) {
  return {
    received_at: clickhouseTime(reject.busTimestamp),
    reason: reject.reason,
    error: reject.error.slice(0, 1000),
    payload: reject.payload.toString('utf8'),
    source: reject.setAside ? SET_ASIDE_SOURCE : REJECT_SOURCE,
    chatbot_id: reject.setAside?.chatbotId ?? '',
    event_id: reject.setAside?.eventId ?? '',
  };
}
