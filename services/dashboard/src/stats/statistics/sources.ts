import Type, { type Static } from 'typebox';
import { compareBytes } from '../insights-report.js';
import { percent, round2 } from '../numbers.js';
import { EUR_PARAMS, numbersOf, readRows } from '../params.js';
import { Attribution, attributionOf } from './purchases.js';
import { Count, Money, Rate, Window, WindowedQuery } from '../schemas.js';
import type { SegmentBy } from '../segment.js';
import { defineStatistic } from '../statistic.js';

export const SourcesQuery = Type.Object({
  ...WindowedQuery.properties,
  by: Type.Optional(Type.Union([Type.Literal('source'), Type.Literal('utm_campaign'), Type.Literal('device')], {
    description: 'The segment attribute to group visitors by; default `source`',
  })),
});

const SourceFigures = {
  visitors: Count,
  chatted: Count,
  purchasers: Count,
  revenue: Money,
  conversion_rate_with_chat: Rate,
  conversion_rate_without_chat: Rate,
};

export const SourcesResponse = Type.Object({
  ...Window,
  attribution: Attribution,
  by: Type.String({ description: '`source`, `utm_campaign` or `device`' }),
  rows: Type.Array(Type.Object({ value: Type.String({ description: "the attribute's value ('' for visits stored before segments existed)" }), ...SourceFigures }), {
    maxItems: 50, description: 'the 50 values with the most visitors (ties: value in byte order), most first',
  }),
  other: Type.Object({ values: Count, ...SourceFigures }, { description: 'the rest summed (`values`: how many values; all 0 when none)' }),
});

const QUERY = 'stats/sources';
/** The same with the shop's orders as the purchases (revenue source 'orders'). */
const ORDERS_QUERY = 'stats/sources_orders';

/** Per the definitions: the sources statistic shows this many values, the rest summed in `other`. */
export const SOURCES_SHOWN = 50;

/** One value of a segment attribute (stats/sources.sql); revenue unrounded (EUR). */
export interface SourceCounts { value: string; visitors: number; chatted: number; purchasers: number; chatted_purchasers: number; revenue: number }

/** A row of the answer: the purchases statistic's rates over the row's tokens. */
function sourceRow(c: Omit<SourceCounts, 'value'>) {
  return {
    visitors: c.visitors,
    chatted: c.chatted,
    purchasers: c.purchasers,
    revenue: round2(c.revenue),
    conversion_rate_with_chat: percent(c.chatted_purchasers, c.chatted),
    conversion_rate_without_chat: percent(c.purchasers - c.chatted_purchasers, c.visitors),
  };
}

/**
 * The SOURCES_SHOWN values with the most visitors (ties: value in byte order), in that order,
 * and `other`: the exact sums of the rest (`values` = how many; all 0 when none).
 */
export function boundSourceRows(rows: readonly SourceCounts[], shown = SOURCES_SHOWN) {
  const ranked = [...rows].sort((a, b) => b.visitors - a.visitors || compareBytes(a.value, b.value));
  const rest = ranked.slice(shown);
  const sum = (k: keyof Omit<SourceCounts, 'value'>) => rest.reduce((n, r) => n + r[k], 0);
  return {
    rows: ranked.slice(0, shown).map((r) => ({ value: r.value, ...sourceRow(r) })),
    other: {
      values: rest.length,
      ...sourceRow({ visitors: sum('visitors'), chatted: sum('chatted'), purchasers: sum('purchasers'), chatted_purchasers: sum('chatted_purchasers'), revenue: sum('revenue') }),
    },
  };
}

/** V grouped by one segment attribute (`by`): the 50 values with the most visitors, then `other`. */
export const sources = defineStatistic<{ by: SegmentBy }>()({
  name: 'sources',
  summary: 'Visitors, chats, purchases and revenue per traffic source, campaign or device',
  query: QUERY,
  frame: 'days',
  compare: true,
  querystring: SourcesQuery,
  response: SourcesResponse,
  args: ['by'],
  extra: (q) => ({ by: (q.by ?? 'source') as SegmentBy }),
  // One row per value of the attribute among V's segments, unsorted.
  read: async ({ clickhouse }, ctx): Promise<SourceCounts[]> => {
    const attribution = attributionOf(ctx.chatbot);
    const rows = attribution.source === 'orders'
      ? await readRows(clickhouse, ORDERS_QUERY, ctx, { by: ctx.extra.by, window_days: attribution.window_days, ...EUR_PARAMS })
      : await readRows(clickhouse, QUERY, ctx, { by: ctx.extra.by });
    return rows.map((r) => ({ value: String(r.value), ...numbersOf(r, ['visitors', 'chatted', 'purchasers', 'chatted_purchasers', 'revenue'] as const) }));
  },
  present: (rows, { extra, chatbot }) => ({ attribution: attributionOf(chatbot), by: extra.by, ...boundSourceRows(rows) }),
  // The revenue rule changes the numbers: it belongs in the key.
  cacheKey: (chatbot) => `${attributionOf(chatbot).source}:${attributionOf(chatbot).window_days ?? ''}`,
  csvName: (q) => ({ afterFrame: q.by ? `by_${q.by}` : undefined }),
  // The rest summed is the last row, its value "(other: N values)"; no such row when there is none.
  csvTable: (body: Static<typeof SourcesResponse>) => {
    const { values, ...other } = body.other;
    return {
      columns: [body.by, ...Object.keys(SourceFigures)],
      rows: [
        ...body.rows.map(({ value, ...figures }) => ({ [body.by]: value, ...figures })),
        ...(values ? [{ [body.by]: `(other: ${values} values)`, ...other }] : []),
      ],
    };
  },
});
