import Type, { type Static } from 'typebox';
import { TRACKED_EVENTS } from '@chatlytics/events';
import { toInt } from '../numbers.js';
import { readRows } from '../params.js';
import { StatsQuery } from '../schemas.js';
import { defineStatistic } from '../statistic.js';

export const EventKindsResponse = Type.Object({
  timeframe_days: Type.Integer(),
  start_date: Type.String(),
  end_date: Type.String(),
  kinds: Type.Array(Type.Object({
    event: Type.String({ description: 'A tracked event name' }),
    events: Type.Integer({ minimum: 0 }),
  }), { description: 'Every tracked event kind, in the tracker\'s order, with its events in the window' }),
});

const QUERY = 'stats/event_kinds';

/** Events in the window per tracked kind (docs/statistics.md): what the tracker sent, counted once each. */
export const eventKinds = defineStatistic()({
  name: 'event-kinds',
  summary: 'Events in the window per tracked kind, each event once',
  query: QUERY,
  frame: 'days',
  compare: true,
  querystring: StatsQuery,
  response: EventKindsResponse,
  read: async ({ clickhouse }, ctx) => (await readRows(clickhouse, QUERY, ctx)).map((r) => [String(r.event), toInt(r.events)] as const),
  present(rows) {
    const counts = new Map(rows);
    return { kinds: TRACKED_EVENTS.map((event) => ({ event, events: counts.get(event) ?? 0 })) };
  },
  csvTable: (body: Static<typeof EventKindsResponse>) => ({ columns: ['event', 'events'], rows: body.kinds }),
});
