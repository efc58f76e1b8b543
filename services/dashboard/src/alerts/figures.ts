import { clickhouseTime, sqlFile, type ClickHouseEngine } from '@chatlytics/clickhouse';
import { createEventStatsRepository } from '../stats/readers.js';
import { toInt } from '../stats/numbers.js';
import { baselineWindow, currentWindow, type AlertFigures, type AlertRule } from './rules.js';

export interface AlertSubject extends AlertRule {
  chatbotId: string;
  abTestEnabled: boolean;
}

/**
 * Reads each kind's figures from ClickHouse for the windows of rules.ts. Every figure but
 * silence's comes from the statistic it is named after (the same query files through the event
 * statistics repository), so an alert and the dashboard never disagree on a number.
 */
export function createAlertFigures(clickhouse: ClickHouseEngine) {
  const events = createEventStatsRepository(clickhouse);
  const funnel = async (chatbotId: string, w: { from: Date; to: Date }) => {
    const t = await events.purchaseFunnel(chatbotId, w);
    return { chatted: t.total_users_chatted, chattedPurchased: t.total_users_chatted_purchased };
  };

  return async function figuresOf(a: AlertSubject, now: Date): Promise<AlertFigures> {
    const w = currentWindow(a, now);
    switch (a.kind) {
      case 'silence': {
        const [row] = await clickhouse.query<Record<string, unknown>>(sqlFile('alerts/silence_events'), {
          chatbot_id: a.chatbotId, from: clickhouseTime(w.from), to: clickhouseTime(w.to),
        });
        return { kind: 'silence', events: toInt(row?.events) };
      }
      case 'conversion_drop': {
        const [current, baseline] = await Promise.all([funnel(a.chatbotId, w), funnel(a.chatbotId, baselineWindow(a, now))]);
        return { kind: 'conversion_drop', current, baseline };
      }
      case 'dislike_share': {
        const c = await events.insightsEvents(a.chatbotId, w);
        return { kind: 'dislike_share', likes: c.likes, dislikes: c.dislikes };
      }
      case 'ab_mismatch': {
        if (!a.abTestEnabled) return { kind: 'ab_mismatch', abTestEnabled: false, controlVisitors: 0, testVisitors: 0 };
        const { ab } = await events.purchases(a.chatbotId, w);
        return { kind: 'ab_mismatch', abTestEnabled: true, controlVisitors: ab.control.visitors, testVisitors: ab.test.visitors };
      }
    }
  };
}
export type AlertFiguresReader = ReturnType<typeof createAlertFigures>;
