import Type, { type Static } from 'typebox';
import { toInt } from '../numbers.js';
import { readRows } from '../params.js';
import { Count, StatsQuery, Window } from '../schemas.js';
import { defineStatistic } from '../statistic.js';

const Day = Type.Object({
  date: Type.String({ description: 'UTC day, YYYY-MM-DD' }),
  matched: Count,
  tracker_only: Count,
  shop_only: Count,
});

export const ReconciliationResponse = Type.Object({
  ...Window,
  matched: Type.Integer({ description: 'Orders confirmed by the shop and matched to a tracker purchase (the purchase\'s order number is the order\'s id)' }),
  tracker_only: Type.Integer({ description: 'Tracker purchases no shop order confirms: forged, test or lost orders, or purchases without an order number' }),
  shop_only: Type.Integer({ description: 'Shop orders the tracker missed (ad blocker, closed tab)' }),
  days: Type.Array(Day, { description: 'Per UTC day with any; an order on its placed_at day, a tracker purchase on its own' }),
});

const QUERY = 'stats/reconciliation';

/**
 * The shop's orders against the tracker's purchases, per day (docs/statistics.md,
 * "reconciliation"): a trust figure for the owner and the data team, whatever the chatbot's
 * revenue source. Never compared, never filtered by segment.
 */
export const reconciliation = defineStatistic()({
  name: 'reconciliation',
  summary: 'Orders confirmed by the shop against tracker purchases, per day: matched, tracker-only, shop-only',
  query: QUERY,
  frame: 'days',
  compare: false,
  querystring: StatsQuery,
  response: ReconciliationResponse,
  read: ({ clickhouse }, ctx) => readRows(clickhouse, QUERY, ctx),
  present(rows) {
    const days = rows.map((r) => ({ date: String(r.day), matched: toInt(r.matched), tracker_only: toInt(r.tracker_only), shop_only: toInt(r.shop_only) }));
    const sum = (k: 'matched' | 'tracker_only' | 'shop_only') => days.reduce((n, d) => n + d[k], 0);
    return { matched: sum('matched'), tracker_only: sum('tracker_only'), shop_only: sum('shop_only'), days };
  },
  // One row per day; the window's totals are the columns' sums.
  csvTable: (body: Static<typeof ReconciliationResponse>) => ({ columns: ['date', 'matched', 'tracker_only', 'shop_only'], rows: body.days }),
});
