import Type, { type Static } from 'typebox';
import { MINUTE_MS } from '@chatlytics/core';
import { clickhouseTime, sqlFile } from '@chatlytics/clickhouse';
import { toInt } from '../numbers.js';
import { readRows } from '../params.js';
import { StatsQuery } from '../schemas.js';
import { defineStatistic } from '../statistic.js';

/** The live view's window: the last 30 minutes (docs/statistics.md). */
export const LIVE_WINDOW_MINUTES = 30;

export const LiveEventsResponse = Type.Object({
  minutes: Type.Array(Type.Object({
    minute: Type.String({ description: 'Start of the minute, YYYY-MM-DD HH:MMZ' }),
    events: Type.Integer({ minimum: 0 }),
  }), { description: 'Every minute of the last 30, oldest first' }),
  bot_requests: Type.Optional(Type.Integer({ minimum: 0, description: 'Requests of the same 30 minutes classified as bots or scripts (stored rows, retries included), left out of `minutes`' })),
});

const QUERY = 'stats/live_events';
const BOTS_QUERY = 'stats/live_bot_requests';

/**
 * Events per minute of the last LIVE_WINDOW_MINUTES minutes, one entry per minute, empty minutes
 * as 0. Never cached: the live view polls every 5 s and promises numbers at most that old; the
 * read is 30 minutes of one chatbot.
 */
export const liveEvents = defineStatistic()({
  name: 'live-events',
  summary: `Events per minute over the last ${LIVE_WINDOW_MINUTES} minutes`,
  query: QUERY,
  frame: 'live',
  compare: false,
  querystring: Type.Object({ chatbot_id: StatsQuery.properties.chatbot_id, format: StatsQuery.properties.format }),
  response: LiveEventsResponse,
  // The minutes that have events only, oldest first ('YYYY-MM-DD HH:MM:SS', UTC).
  // Beside them, the bot rows of the window (the live view says they are left out).
  read: async ({ clickhouse }, { chatbot, window }) => {
    const [rows, bots] = await Promise.all([
      readRows(clickhouse, QUERY, { chatbot, window }),
      clickhouse.query<Record<string, unknown>>(sqlFile(BOTS_QUERY), { chatbot_id: chatbot.id, from: clickhouseTime(window.from), to: clickhouseTime(window.to) }),
    ]);
    return { rows: rows.map((r) => ({ minute: String(r.minute), events: toInt(r.events) })), botRequests: toInt(bots[0]?.requests) };
  },
  present({ rows, botRequests }, { window }) {
    const byMinute = new Map(rows.map((r) => [r.minute, r.events]));
    const minutes: { minute: string; events: number }[] = [];
    for (let t = Math.floor(window.from.getTime() / MINUTE_MS) * MINUTE_MS; t <= window.to.getTime(); t += MINUTE_MS) {
      const key = new Date(t).toISOString().slice(0, 19).replace('T', ' ');
      minutes.push({ minute: `${key.slice(0, 16)}Z`, events: byMinute.get(key) ?? 0 });
    }
    return { minutes, bot_requests: botRequests };
  },
  // One row per minute; the bot requests are no minute's (their total is all the live view reads): they stay in the JSON.
  csvTable: (body: Static<typeof LiveEventsResponse>) => ({ columns: ['minute', 'events'], rows: body.minutes }),
});
