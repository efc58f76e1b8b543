import Type, { type Static } from 'typebox';
import { DAY_MS, HOUR_MS } from '@chatlytics/core';
import { round2 } from '../numbers.js';
import { EUR_PARAMS, numbersOf, readRows } from '../params.js';
import { Attribution, attributionOf } from './purchases.js';
import { Window, WindowedQuery } from '../schemas.js';
import { Errors } from '../../http/errors.js';
import { defineStatistic } from '../statistic.js';
import type { StatsWindow } from '../window.js';

/** Hours in a series by hour at the most: a week. */
export const MAX_HOURLY_HOURS = 7 * 24;

export const TimeseriesQuery = Type.Object({
  ...WindowedQuery.properties,
  bucket: Type.Optional(Type.Union([Type.Literal('day'), Type.Literal('hour')], {
    description: '`day` (default): one point per UTC day; `hour`: one per UTC hour, for a window of at most 7 days (168 hours; longer: 422 naming `bucket`)',
  })),
});
export type Bucket = 'day' | 'hour';

const Point = {
  visitors: Type.Integer({ minimum: 0, description: 'Distinct tokens with a visitor event in the day (hour)' }),
  conversations: Type.Integer({ minimum: 0, description: 'convo_started events in the day (hour)' }),
  purchases: Type.Integer({ minimum: 0, description: 'Counted purchases (as in purchases) by the day (hour) of their first copy' }),
  revenue: Type.Number({ description: 'EUR, 2 decimals' }),
};

export const TimeseriesResponse = Type.Object({
  ...Window,
  attribution: Attribution,
  days: Type.Array(Type.Object({ date: Type.String({ description: 'YYYY-MM-DD (UTC day)' }), ...Point }), {
    description: 'bucket=day: every UTC day of the window, oldest first; days without events are zeros. bucket=hour: empty',
  }),
  bucket: Type.Union([Type.Literal('day'), Type.Literal('hour')], { description: 'The points\' unit: the query\'s `bucket`' }),
  hours: Type.Optional(Type.Array(Type.Object({ hour: Type.String({ description: 'YYYY-MM-DDTHH:00:00Z (start of the UTC hour)' }), ...Point }), {
    description: 'bucket=hour only: every UTC hour the window touches, oldest first; hours without events are zeros',
  })),
});

const QUERY = 'stats/timeseries';
/** The same series with the shop's orders as the purchases (revenue source 'orders'). */
const ORDERS_QUERY = 'stats/timeseries_orders';
/** By hour (bucket=hour), with the purchases or the shop's orders. */
const HOURLY_QUERY = 'stats/timeseries_hourly';
const HOURLY_ORDERS_QUERY = 'stats/timeseries_hourly_orders';

/** One UTC day (or hour, `YYYY-MM-DDTHH:00:00Z`) of the series; revenue unrounded (EUR). */
export interface DayTotals { day: string; visitors: number; conversations: number; purchases: number; revenue: number }

/** The UTC hours the window touches, oldest first, as `YYYY-MM-DDTHH:00:00Z`. */
export function utcHours(w: StatsWindow): string[] {
  const hours: string[] = [];
  for (let t = Math.floor(w.from.getTime() / HOUR_MS) * HOUR_MS; t <= w.to.getTime(); t += HOUR_MS) hours.push(`${new Date(t).toISOString().slice(0, 13)}:00:00Z`);
  return hours;
}

/** The UTC dates `YYYY-MM-DD` from the window's first day to its last, both included. */
export function utcDays(w: StatsWindow): string[] {
  const days: string[] = [];
  for (let t = Date.UTC(w.from.getUTCFullYear(), w.from.getUTCMonth(), w.from.getUTCDate()); t <= w.to.getTime(); t += DAY_MS) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/**
 * Daily (or hourly) visitors, conversations, purchases and revenue: one row per UTC day (hour)
 * of W, oldest first, those without events as zeros.
 */
export const timeseries = defineStatistic<{ bucket?: Bucket }>()({
  name: 'timeseries',
  summary: 'Daily (or hourly) visitors, conversations, purchases and revenue (UTC)',
  query: QUERY,
  frame: 'days',
  compare: true,
  querystring: TimeseriesQuery,
  response: TimeseriesResponse,
  extra: (q) => ({ bucket: (q.bucket ?? 'day') as Bucket }),
  // The revenue rule changes the numbers: it belongs in the key.
  cacheKey: (chatbot) => `${attributionOf(chatbot).source}:${attributionOf(chatbot).window_days ?? ''}`,
  // The days that have rows only, oldest first.
  read: async ({ clickhouse }, ctx): Promise<DayTotals[]> => {
    const hourly = ctx.extra.bucket === 'hour';
    if (hourly && ctx.window.to.getTime() - ctx.window.from.getTime() > MAX_HOURLY_HOURS * HOUR_MS) {
      throw Errors.validation({ bucket: [`must be day for a window longer than ${MAX_HOURLY_HOURS / 24} days`] });
    }
    const orders = attributionOf(ctx.chatbot).source === 'orders';
    const file = hourly ? (orders ? HOURLY_ORDERS_QUERY : HOURLY_QUERY) : (orders ? ORDERS_QUERY : QUERY);
    const rows = await readRows(clickhouse, file, ctx, orders ? EUR_PARAMS : {});
    return rows.map((r) => ({ day: String(hourly ? r.hour : r.day), ...numbersOf(r, ['visitors', 'conversations', 'purchases', 'revenue'] as const) }));
  },
  csvTable: (body: Static<typeof TimeseriesResponse>) => (body.bucket === 'hour'
    ? { columns: ['hour', 'visitors', 'conversations', 'purchases', 'revenue'], rows: body.hours ?? [] }
    : { columns: ['date', 'visitors', 'conversations', 'purchases', 'revenue'], rows: body.days }),
  present(rows, { window, chatbot, extra }) {
    const byKey = new Map(rows.map((r) => [r.day, r]));
    const point = (key: string) => {
      const r = byKey.get(key);
      return { visitors: r?.visitors ?? 0, conversations: r?.conversations ?? 0, purchases: r?.purchases ?? 0, revenue: round2(r?.revenue ?? 0) };
    };
    const attribution = attributionOf(chatbot);
    return extra.bucket === 'hour'
      ? { attribution, days: [], bucket: 'hour' as const, hours: utcHours(window).map((hour) => ({ hour, ...point(hour) })) }
      : { attribution, days: utcDays(window).map((date) => ({ date, ...point(date) })), bucket: 'day' as const };
  },
});
