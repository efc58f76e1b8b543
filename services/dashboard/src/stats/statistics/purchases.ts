import Type, { type Static } from 'typebox';
import { sampleRatioMismatch, twoProportionPValue, wilsonInterval } from '../ab-significance.js';
import { percent, ratio, round2, toInt } from '../numbers.js';
import { EUR_PARAMS, numbersOf, readRows, type Row } from '../params.js';
import type { StatsChatbot } from '../conversation-stats-repository.js';
import { Count, Money, Rate, Window, WindowedQuery } from '../schemas.js';
import { scalarRow } from '../csv.js';
import { defineStatistic } from '../statistic.js';

const AbGroup = Type.Object({
  visitors: Count,
  orders: Count,
  conversion_rate: Rate,
  aov: Money,
  arpu: Money,
  conversion_rate_ci95: Type.Object({ lower: Rate, upper: Rate }, { description: 'Wilson score interval (beyond the required fields)' }),
});

/** Which rule a money figure follows (docs/statistics.md, "Revenue source"). */
export const Attribution = Type.Object({
  source: Type.Union([Type.Literal('tracker'), Type.Literal('orders')], { description: '`tracker`: purchase events; `orders`: the shop\'s orders, net of refunds and cancellations' }),
  window_days: Type.Union([Type.Integer(), Type.Null()], { description: 'orders: an order is after chat when its token started a conversation within this many days before it; tracker: null (after the first chat in the window)' }),
});
export const attributionOf = (chatbot: StatsChatbot) => (chatbot.revenueSource === 'orders'
  ? { source: 'orders' as const, window_days: chatbot.attributionWindowDays ?? 7 }
  : { source: 'tracker' as const, window_days: null });

export const PurchasesResponse = Type.Object({
  ...Window,
  attribution: Attribution,
  total_users: Count,
  total_users_chatted: Count,
  total_users_purchased: Count,
  total_users_chatted_purchased: Count,
  total_revenue_purchased: Money,
  total_revenue_chatted_purchased: Money,
  conversion_rate_with_chat: Rate,
  conversion_rate_without_chat: Rate,
  aov_with_chat: Money,
  aov_without_chat: Money,
  orders_direct: Type.Optional(Type.Integer({ minimum: 0, description: 'Revenue source orders only: after-chat orders with a product the visitor clicked in the chat (click_through with item_id)' })),
  total_revenue_direct: Type.Optional(Type.Number({ description: 'Revenue source orders only: their net revenue, EUR' })),
  ab_test: Type.Optional(Type.Object({
    control: AbGroup,
    test: AbGroup,
    comparison: Type.Object({
      p_value: Type.Number({ description: 'Two-proportion z-test (pooled), two-sided' }),
      sample_ratio_mismatch: Type.Boolean({ description: 'Chi-square against 50/50, p < 0.001' }),
      sample_ratio_p_value: Type.Number(),
    }, { description: 'Beyond the required fields' }),
  }, { description: 'Only when the chatbot has abTestEnabled' })),
});

const QUERY = 'stats/purchases';
/** The same funnel with the shop's orders as the purchases (revenue source 'orders'). */
const ORDERS_QUERY = 'stats/purchases_orders';

/** Raw counts and sums; rates and rounding are derived by the presenter. */
export interface PurchaseTotals {
  total_users: number;
  total_users_chatted: number;
  total_users_purchased: number;
  total_users_chatted_purchased: number;
  total_revenue_purchased: number;
  total_revenue_chatted_purchased: number;
  /** Revenue of the purchases not after chat. */
  revenue_other: number;
  orders: number;
  orders_after_chat: number;
}
export interface AbGroupTotals { visitors: number; orders: number; purchasers: number; revenue: number }
/** The A/B block's raw totals per group (meaningful for chatbots with abTestEnabled). */
export interface AbTotals { control: AbGroupTotals; test: AbGroupTotals }

/** The funnel's figures of a purchases answer row, the A/B block aside. */
const funnelOf = (row: Row | undefined): PurchaseTotals => numbersOf(row, [
  'total_users', 'total_users_chatted', 'total_users_purchased', 'total_users_chatted_purchased',
  'total_revenue_purchased', 'total_revenue_chatted_purchased', 'revenue_other', 'orders', 'orders_after_chat',
] as const);

function abOf(row: Row | undefined): AbTotals {
  const ab = numbersOf(row, [
    'control_visitors', 'control_orders', 'control_purchasers', 'control_revenue',
    'test_visitors', 'test_orders', 'test_purchasers', 'test_revenue',
  ] as const);
  const group = (g: 'control' | 'test'): AbGroupTotals => ({
    visitors: ab[`${g}_visitors`], orders: ab[`${g}_orders`], purchasers: ab[`${g}_purchasers`], revenue: ab[`${g}_revenue`],
  });
  return { control: group('control'), test: group('test') };
}

/** p-values keep 6 decimals: rounded to 2, anything below 0.005 would read as 0. */
const P_VALUE_DECIMALS = 6;
const roundTo = (x: number, decimals: number) => Number(x.toFixed(decimals));

/** The purchases body's funnel fields, rates and averages derived from the raw totals. */
function funnelBody(t: PurchaseTotals) {
  return {
    total_users: t.total_users,
    total_users_chatted: t.total_users_chatted,
    total_users_purchased: t.total_users_purchased,
    total_users_chatted_purchased: t.total_users_chatted_purchased,
    total_revenue_purchased: round2(t.total_revenue_purchased),
    total_revenue_chatted_purchased: round2(t.total_revenue_chatted_purchased),
    conversion_rate_with_chat: percent(t.total_users_chatted_purchased, t.total_users_chatted),
    conversion_rate_without_chat: percent(t.total_users_purchased - t.total_users_chatted_purchased, t.total_users),
    aov_with_chat: ratio(t.total_revenue_chatted_purchased, t.orders_after_chat),
    aov_without_chat: ratio(t.revenue_other, t.orders - t.orders_after_chat),
  };
}

function abGroup(t: AbGroupTotals) {
  const ci = wilsonInterval(t.purchasers, t.visitors);
  return {
    visitors: t.visitors,
    orders: t.orders,
    conversion_rate: percent(t.purchasers, t.visitors),
    aov: ratio(t.revenue, t.orders),
    arpu: ratio(t.revenue, t.visitors),
    // Beyond the required fields: the conversion rate's 95 % Wilson interval, in percent.
    conversion_rate_ci95: { lower: round2(ci.lower * 100), upper: round2(ci.upper * 100) },
  };
}

function abTest({ control, test }: AbTotals) {
  const srm = sampleRatioMismatch(control.visitors, test.visitors);
  return {
    control: abGroup(control),
    test: abGroup(test),
    // Beyond the required fields: is the difference real, and can the split be trusted?
    comparison: {
      p_value: roundTo(twoProportionPValue(control.purchasers, control.visitors, test.purchasers, test.visitors), P_VALUE_DECIMALS),
      sample_ratio_mismatch: srm.mismatch,
      sample_ratio_p_value: roundTo(srm.pValue, P_VALUE_DECIMALS),
    },
  };
}

/**
 * Purchases, revenue and conversion with and without chat; with the chatbot's A/B test on, the
 * A/B block too. A chatbot without A/B test gets the funnel alone, the same query without the
 * block (`ab_block`), which is cheaper.
 */
export const purchases = defineStatistic()({
  name: 'purchases',
  summary: 'Purchases, revenue and conversion with and without chat; A/B test',
  query: QUERY,
  frame: 'days',
  compare: true,
  querystring: WindowedQuery,
  response: PurchasesResponse,
  async read({ clickhouse }, ctx): Promise<PurchaseTotals & { ab?: AbTotals; direct?: { orders: number; revenue: number } }> {
    const withAb = ctx.chatbot.abTestEnabled;
    const attribution = attributionOf(ctx.chatbot);
    const [row] = attribution.source === 'orders'
      ? await readRows(clickhouse, ORDERS_QUERY, ctx, { ab_block: String(withAb), window_days: attribution.window_days, ...EUR_PARAMS })
      : await readRows(clickhouse, QUERY, ctx, { ab_block: String(withAb) });
    const direct = attribution.source === 'orders' ? { direct: { orders: toInt(row?.orders_direct), revenue: Number(row?.revenue_direct ?? 0) } } : {};
    return withAb ? { ...funnelOf(row), ...direct, ab: abOf(row) } : { ...funnelOf(row), ...direct };
  },
  present: (t, ctx) => {
    const direct = t.direct ? { orders_direct: t.direct.orders, total_revenue_direct: round2(t.direct.revenue) } : {};
    const body = { attribution: attributionOf(ctx.chatbot), ...funnelBody(t), ...direct };
    return t.ab ? { ...body, ab_test: abTest(t.ab) } : body;
  },
  // The A/B switch changes the body's shape, the revenue rule its numbers: both belong in the key.
  cacheKey: (chatbot) => `${chatbot.abTestEnabled}:${attributionOf(chatbot).source}:${attributionOf(chatbot).window_days ?? ''}`,
  csvTable: (body: Static<typeof PurchasesResponse>) => (body.ab_test ? { columns: AB_COLUMNS, rows: abRows(body.ab_test) } : scalarRow(body)),
});

const AB_COLUMNS = [
  'group', 'visitors', 'orders', 'conversion_rate', 'conversion_rate_ci95_lower', 'conversion_rate_ci95_upper', 'aov', 'arpu', 'p_value', 'sample_ratio_mismatch', 'sample_ratio_p_value',
] as const;

/**
 * An A/B chatbot's purchases table: one row per group; the comparison's figures compare the two
 * groups, so both rows carry them.
 */
function abRows(ab: NonNullable<Static<typeof PurchasesResponse>['ab_test']>) {
  const c = ab.comparison;
  return (['control', 'test'] as const).map((group) => {
    const g = ab[group];
    return {
      group, visitors: g.visitors, orders: g.orders, conversion_rate: g.conversion_rate,
      conversion_rate_ci95_lower: g.conversion_rate_ci95.lower, conversion_rate_ci95_upper: g.conversion_rate_ci95.upper, aov: g.aov, arpu: g.arpu,
      p_value: c.p_value, sample_ratio_mismatch: c.sample_ratio_mismatch, sample_ratio_p_value: c.sample_ratio_p_value,
    };
  });
}
