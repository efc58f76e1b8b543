import { DAY_MS } from '@chatlytics/core';
import { clickhouseTime, parseClickhouseTime, sqlFile, type ClickHouseEngine } from '@chatlytics/clickhouse';

/** One tracked event of a visitor, as the conversation page lists it. */
export interface VisitorEvent {
  eventId: string;
  event: string;
  /** The earliest copy's server time (UTC). */
  at: Date;
  url: string;
  popupVersion: string;
  openWay: string;
  orderNum: string;
  /** The purchase's value in EUR; null when a currency was unknown (and for events without items, 0). */
  valueEur: number | null;
}

/**
 * Events are read from a day before the conversation started to a day after its last message:
 * enough for the visit that led to the chat and the purchase after it, while the read stays a
 * bounded slice of the chatbot's rows (a token can live for months).
 */
export const VISITOR_EVENTS_MARGIN_MS = DAY_MS;
/** A conversation page lists at most this many of the visitor's events. */
export const VISITOR_EVENTS_LIMIT = 200;


/**
 * A visitor's events in ClickHouse (clickhouse/queries/app/conversation_visitor_events.sql, bound
 * parameters). ClickHouse knows no accounts: callers pass a chatbot and token taken from a
 * conversation the account-scoped conversation repository returned, never request input.
 */
export function createVisitorEventRepository(clickhouse: ClickHouseEngine) {
  return {
    async aroundConversation(c: { chatbotId: string; visitorToken: string; from: Date; to: Date }): Promise<{ events: VisitorEvent[]; truncated: boolean }> {
      const rows = await clickhouse.query<Record<string, unknown>>(sqlFile('app/conversation_visitor_events'), {
        chatbot_id: c.chatbotId, token: c.visitorToken,
        from: clickhouseTime(new Date(c.from.getTime() - VISITOR_EVENTS_MARGIN_MS)), to: clickhouseTime(new Date(c.to.getTime() + VISITOR_EVENTS_MARGIN_MS)),
        limit: VISITOR_EVENTS_LIMIT + 1,
      });
      const events = rows.slice(0, VISITOR_EVENTS_LIMIT).map((r) => ({
        eventId: String(r.event_id),
        event: String(r.event),
        at: new Date(parseClickhouseTime(String(r.at))),
        url: String(r.url ?? ''),
        popupVersion: String(r.popup_version ?? ''),
        openWay: String(r.open_way ?? ''),
        orderNum: String(r.order_num ?? ''),
        valueEur: r.value_eur === null || r.value_eur === undefined ? null : Number(r.value_eur),
      }));
      return { events, truncated: rows.length > VISITOR_EVENTS_LIMIT };
    },
  };
}
export type VisitorEventRepository = ReturnType<typeof createVisitorEventRepository>;
