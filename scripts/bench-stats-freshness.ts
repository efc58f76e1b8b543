/**
 * Freshness of the statistics (part of `npm run bench:pipeline`): per round, one new visitor
 * of a dedicated chatbot publishes a visitor, popup_displayed, convo_started, purchase and
 * click_through event; the time from the bus acknowledgement until every statistic that counts
 * one of them (engagement, popup-metrics, purchases, insights events, the time series) shows
 * it, read through the statistics repository the API answers from (its 5 s result cache aside).
 */
import { randomUUID } from 'node:crypto';
import type { ClickHouseEngine } from '@chatlytics/clickhouse';
import type { BusMessage } from '@chatlytics/bus';
import type { StoredEvent } from '@chatlytics/events';
import { chTime } from '@chatlytics/testkit';
import { createEventStatsRepository } from '../services/dashboard/src/stats/event-stats-repository.js';
import { daysWindow } from '../services/dashboard/src/stats/timeframe.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function marker(chatbotId: string, token: string, event: string, at: number): StoredEvent {
  return {
    event_id: randomUUID(), event, token, chatbot_id: chatbotId, received_at: chTime(at), ab_test: false, ab_group: null,
    popup_version: event === 'popup_displayed' ? 'v1' : '', open_way: event === 'convo_started' ? 'popup' : '',
    order_num: event === 'purchase' ? `ORD-${token}` : '', currency: event === 'purchase' ? 'EUR' : '',
    total_value: event === 'purchase' ? 10 : 0, total_value_base: event === 'purchase' ? 10 : 0, items: [],
    url: '', user_agent: '', client_hash: '', data: '{}',
  };
}

/** Latencies in ms, one per round, sorted. */
export async function statisticsFreshness(
  publish: (messages: BusMessage[]) => Promise<void>, ch: ClickHouseEngine, rounds: number,
): Promise<number[]> {
  const stats = createEventStatsRepository(ch);
  const chatbotId = randomUUID();
  const latencies: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const token = `fresh${round}x${randomUUID().slice(0, 8)}`;
    const now = Date.now();
    const events = ['visitor', 'popup_displayed', 'convo_started', 'purchase', 'click_through'].map((e, i) => marker(chatbotId, token, e, now + i));
    await publish(events.map((e) => ({ key: e.token, value: Buffer.from(JSON.stringify(e)) })));
    const ackAt = performance.now();
    for (;;) {
      const w = daysWindow(1, new Date());
      const [engagement, popup, purchases, insights, series] = await Promise.all([stats.engagement(chatbotId, w), stats.popupMetrics(chatbotId, w),
        stats.purchases(chatbotId, w), stats.insightsEvents(chatbotId, w), stats.timeseries(chatbotId, w)]);
      const visible = engagement.total_users_chatted === round && popup.conversations.total === round
        && popup.rows.reduce((s, r) => s + r.popup_displayed_count, 0) === round && purchases.orders === round
        && insights.total_click_throughs === round && series.reduce((s, d) => s + d.purchases, 0) === round;
      if (visible) break;
      if (performance.now() - ackAt > 30_000) throw new Error(`round ${round}: not visible in the statistics after 30 s`);
      await sleep(10);
    }
    latencies.push(performance.now() - ackAt);
    await sleep(200);
  }
  return latencies.sort((a, b) => a - b);
}
