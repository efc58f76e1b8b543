import Type, { type Static } from 'typebox';
import { DAY_MS } from '@chatlytics/core';
import { round2 } from '../numbers.js';
import { EUR_PARAMS, numbersOf, readRows } from '../params.js';
import { Attribution, attributionOf } from './purchases.js';
import { Window, WindowedQuery } from '../schemas.js';
import { defineStatistic } from '../statistic.js';
import type { StatsWindow } from '../window.js';

export const TimeseriesResponse = Type.Object({
  ...Window,
  attribution: Attribution,
  days: Type.Array(Type.Object({
    date: Type.String({ description: 'YYYY-MM-DD (UTC day)' }),
    visitors: Type.Integer({ minimum: 0, description: 'Distinct tokens with a visitor event that day' }),
    conversations: Type.Integer({ minimum: 0, description: 'convo_started events that day' }),
    purchases: Type.Integer({ minimum: 0, description: 'Counted purchases (as in purchases) by the day of their first copy' }),
    revenue: Type.Number({ description: 'EUR, 2 decimals' }),
  }), { description: 'Every UTC day of the window, oldest first; days without events are zeros' }),
});

const QUERY = 'stats/timeseries';
/** The same series with the shop's orders as the purchases (revenue source 'orders'). */
const ORDERS_QUERY = 'stats/timeseries_orders';

/** One UTC day of the series; revenue unrounded (EUR). */
export interface DayTotals { day: string; visitors: number; conversations: number; purchases: number; revenue: number }

/** The UTC dates `YYYY-MM-DD` from the window's first day to its last, both included. */
export function utcDays(w: StatsWindow): string[] {
  const days: string[] = [];
  for (let t = Date.UTC(w.from.getUTCFullYear(), w.from.getUTCMonth(), w.from.getUTCDate()); t <= w.to.getTime(); t += DAY_MS) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/** Daily visitors, conversations, purchases and revenue: one row per UTC day of W, oldest first, days without events as zeros. */
export const timeseries = defineStatistic()({
  name: 'timeseries',
  summary: 'Daily visitors, conversations, purchases and revenue (UTC days)',
  query: QUERY,
  frame: 'days',
  compare: true,
  querystring: WindowedQuery,
  response: TimeseriesResponse,
  // The revenue rule changes the numbers: it belongs in the key.
  cacheKey: (chatbot) => `${attributionOf(chatbot).source}:${attributionOf(chatbot).window_days ?? ''}`,
  // The days that have rows only, oldest first.
  read: async ({ clickhouse }, ctx): Promise<DayTotals[]> => {
    const attribution = attributionOf(ctx.chatbot);
    const rows = attribution.source === 'orders'
      ? await readRows(clickhouse, ORDERS_QUERY, ctx, EUR_PARAMS)
      : await readRows(clickhouse, QUERY, ctx);
    return rows.map((r) => ({ day: String(r.day), ...numbersOf(r, ['visitors', 'conversations', 'purchases', 'revenue'] as const) }));
  },
  csvTable: (body: Static<typeof TimeseriesResponse>) => ({ columns: ['date', 'visitors', 'conversations', 'purchases', 'revenue'], rows: body.days }),
  present(rows, { window, chatbot }) {
    const byDay = new Map(rows.map((r) => [r.day, r]));
    return {
      attribution: attributionOf(chatbot),
      days: utcDays(window).map((day) => {
        const r = byDay.get(day);
        return { date: day, visitors: r?.visitors ?? 0, conversations: r?.conversations ?? 0, purchases: r?.purchases ?? 0, revenue: round2(r?.revenue ?? 0) };
      }),
    };
  },
});
