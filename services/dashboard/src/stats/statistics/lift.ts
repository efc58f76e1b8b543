import Type from 'typebox';
import { sampleRatioMismatch, twoProportionPValue } from '../ab-significance.js';
import { newcombeInterval, sampleVariance, visitorsForPower, welchInterval, type Sums } from '../lift-intervals.js';
import { percent, ratio, round2 } from '../numbers.js';
import { EUR_PARAMS, numbersOf, readRows } from '../params.js';
import { Attribution, attributionOf } from './purchases.js';
import { Count, Money, Rate, Window, WindowedQuery } from '../schemas.js';
import { defineStatistic } from '../statistic.js';

const Ci95 = (description: string) => Type.Object({ lower: Type.Number(), upper: Type.Number() }, { description });
const PValue = Type.Number({ description: 'Two-sided, 6 decimals' });

const Arm = (description: string) => Type.Object({
  visitors: Count,
  buyers: Type.Integer({ minimum: 0, description: 'Visitors of the arm with a counted purchase in W' }),
  conversion_rate: Rate,
  orders: Count,
  revenue: Money,
  revenue_per_visitor: Type.Number({ description: 'revenue / visitors (zeros included), EUR, 2 decimals' }),
  aov: Money,
}, { description });

export const LiftResponse = Type.Object({
  ...Window,
  holdout_percent: Type.Integer({ minimum: 0, maximum: 50, description: "The chatbot's holdoutPercent now; 0: no holdout runs" }),
  exposed: Arm('The visitors who could see the assistant'),
  holdout: Arm('The visitors held out: the assistant stayed hidden'),
  conversion_rate_difference: Type.Object({
    value: Type.Number({ description: 'exposed − holdout conversion rate, percentage points, 2 decimals' }),
    ci95: Ci95("Newcombe's hybrid score interval (method 10), percentage points"),
    p_value: Type.Number({ description: 'Two-proportion z-test (pooled), two-sided, 6 decimals' }),
  }),
  revenue_per_visitor_difference: Type.Object({
    value: Type.Number({ description: 'exposed − holdout revenue per visitor, EUR, 2 decimals' }),
    ci95: Ci95("Welch's t interval, EUR"),
    p_value: PValue,
  }),
  incremental_revenue: Type.Object({
    value: Type.Number({ description: 'revenue_per_visitor_difference × exposed visitors, EUR, 2 decimals' }),
    ci95: Ci95('The revenue per visitor interval × exposed visitors, EUR'),
  }),
  sample_ratio_mismatch: Type.Boolean({ description: 'Chi-square of the split against holdout_percent, p < 0.001' }),
  sample_ratio_p_value: PValue,
  visitors_needed: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'More visitors (both arms) needed to detect the observed revenue per visitor difference (10 % of the holdout\'s if it is 0) at 80 % power and 5 % significance; null when it cannot be estimated',
  }),
  attribution: Attribution,
});

const QUERY = 'stats/lift';
/** The same sums with the shop's orders as the purchases (revenue source 'orders'). */
const ORDERS_QUERY = 'stats/lift_orders';

/** One arm's sums as stats/lift.sql returns them. */
export interface ArmSums { visitors: number; buyers: number; orders: number; revenue: number; revenue_squares: number }
export interface LiftSums { exposed: ArmSums; holdout: ArmSums }

const ARM_FIELDS = ['visitors', 'buyers', 'orders', 'revenue', 'revenue_squares'] as const;
const P_VALUE_DECIMALS = 6;
const roundTo = (x: number, decimals: number) => Number(x.toFixed(decimals));
const pp = (x: number) => round2(x * 100);

function arm(a: ArmSums) {
  return {
    visitors: a.visitors,
    buyers: a.buyers,
    conversion_rate: percent(a.buyers, a.visitors),
    orders: a.orders,
    revenue: round2(a.revenue),
    revenue_per_visitor: ratio(a.revenue, a.visitors),
    aov: ratio(a.revenue, a.orders),
  };
}

const perVisitor = (a: ArmSums): Sums => ({ n: a.visitors, sum: a.revenue, sumSquares: a.revenue_squares });

/** More visitors, in all, that would detect the difference (docs/statistics.md, "lift"); null when not estimable. */
function visitorsNeeded({ exposed, holdout }: LiftSums, holdoutPercent: number, observed: number): number | null {
  const holdoutRpv = holdout.visitors > 0 ? holdout.revenue / holdout.visitors : 0;
  const exposedRpv = exposed.visitors > 0 ? exposed.revenue / exposed.visitors : 0;
  const delta = observed !== 0 ? observed : 0.1 * (holdoutRpv || exposedRpv);
  const n = visitorsForPower(delta, sampleVariance(perVisitor(exposed)), sampleVariance(perVisitor(holdout)), holdoutPercent / 100);
  if (!Number.isFinite(n) || n === 0) return null;
  return Math.max(0, Math.ceil(n) - exposed.visitors - holdout.visitors);
}

export function presentLift(sums: LiftSums, holdoutPercent: number) {
  const { exposed, holdout } = sums;
  const conversion = newcombeInterval(exposed.buyers, exposed.visitors, holdout.buyers, holdout.visitors);
  const rpv = welchInterval(perVisitor(exposed), perVisitor(holdout));
  const srm = sampleRatioMismatch(exposed.visitors, holdout.visitors, holdoutPercent / 100);
  return {
    holdout_percent: holdoutPercent,
    exposed: arm(exposed),
    holdout: arm(holdout),
    conversion_rate_difference: {
      value: pp(conversion.value),
      ci95: { lower: pp(conversion.lower), upper: pp(conversion.upper) },
      p_value: roundTo(twoProportionPValue(exposed.buyers, exposed.visitors, holdout.buyers, holdout.visitors), P_VALUE_DECIMALS),
    },
    revenue_per_visitor_difference: {
      value: round2(rpv.value),
      ci95: { lower: round2(rpv.lower), upper: round2(rpv.upper) },
      p_value: roundTo(rpv.pValue, P_VALUE_DECIMALS),
    },
    incremental_revenue: {
      value: round2(rpv.value * exposed.visitors),
      ci95: { lower: round2(rpv.lower * exposed.visitors), upper: round2(rpv.upper * exposed.visitors) },
    },
    sample_ratio_mismatch: srm.mismatch,
    sample_ratio_p_value: roundTo(srm.pValue, P_VALUE_DECIMALS),
    visitors_needed: visitorsNeeded(sums, holdoutPercent, rpv.value),
  };
}

/**
 * The revenue the assistant adds: the chatbot's holdout (visitors for whom the widget stayed
 * hidden) against the exposed visitors, with intervals. The SQL sums per arm; the intervals
 * and tests are computed here (lift-intervals.ts).
 */
export const lift = defineStatistic()({
  name: 'lift',
  summary: 'The revenue the assistant adds: exposed visitors against the holdout, with 95 % intervals',
  query: QUERY,
  frame: 'days',
  compare: true,
  querystring: WindowedQuery,
  response: LiftResponse,
  async read({ clickhouse }, ctx): Promise<LiftSums> {
    const [row] = attributionOf(ctx.chatbot).source === 'orders'
      ? await readRows(clickhouse, ORDERS_QUERY, ctx, EUR_PARAMS)
      : await readRows(clickhouse, QUERY, ctx);
    const of = (prefix: 'exposed' | 'holdout'): ArmSums => {
      const n = numbersOf(row, ARM_FIELDS.map((k) => `${prefix}_${k}`));
      return Object.fromEntries(ARM_FIELDS.map((k) => [k, n[`${prefix}_${k}`]])) as unknown as ArmSums;
    };
    return { exposed: of('exposed'), holdout: of('holdout') };
  },
  present: (sums, ctx) => ({ ...presentLift(sums, ctx.chatbot.holdoutPercent ?? 0), attribution: attributionOf(ctx.chatbot) }),
  // The percentage is part of the answer (and of the sample-ratio check), the revenue source of
  // its numbers: both belong in the key.
  cacheKey: (chatbot) => `${chatbot.holdoutPercent ?? 0}:${attributionOf(chatbot).source}:${attributionOf(chatbot).window_days ?? ''}`,
});
