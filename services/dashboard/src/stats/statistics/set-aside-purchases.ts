import Type from 'typebox';
import { clickhouseTime, sqlFile } from '@chatlytics/clickhouse';
import { SET_ASIDE_REASONS, type SetAsideReason } from '@chatlytics/events';
import { toInt } from '../numbers.js';
import { StatsQuery } from '../schemas.js';
import { defineStatistic } from '../statistic.js';

/**
 * Purchases set aside in a window: accepted by the tracking endpoint but counted by no
 * statistic (implausible, or unverified when the chatbot requires signed purchases), read from
 * `events_rejected` (stats/set_aside_purchases.sql). Separate from the purchases statistic, whose
 * SQL reads `events` only.
 */
export const SetAsideResponse = Type.Object({
  timeframe_days: Type.Integer(),
  start_date: Type.String(),
  end_date: Type.String(),
  total: Type.Integer({ description: 'Purchases set aside in the window' }),
  implausible: Type.Integer({ description: 'A negative value or quantity, an EUR value over the chatbot\'s cap, or a quantity over 10,000' }),
  unverified: Type.Integer({ description: 'Without a valid signature while the chatbot requires signed purchases' }),
  by_reason: Type.Object(Object.fromEntries(SET_ASIDE_REASONS.map((r) => [r, Type.Integer()])) as Record<SetAsideReason, ReturnType<typeof Type.Integer>>),
});

const QUERY = 'stats/set_aside_purchases';
const IMPLAUSIBLE: readonly SetAsideReason[] = ['negative_amount', 'implausible_value', 'implausible_quantity'];

/** Purchases set aside in the window (implausible, unverified): the app's note under revenue. Never compared, never filtered. */
export const setAsidePurchases = defineStatistic()({
  name: 'set-aside-purchases',
  summary: 'Purchases accepted but not counted: implausible, or unverified when signatures are required',
  query: QUERY,
  frame: 'days',
  compare: false,
  querystring: StatsQuery,
  response: SetAsideResponse,
  read: ({ clickhouse }, { chatbot, window }) => clickhouse.query<{ reason: string; purchases: unknown }>(sqlFile(QUERY), {
    chatbot_id: chatbot.id, from: clickhouseTime(window.from), to: clickhouseTime(window.to),
  }),
  present(rows) {
    const byReason = Object.fromEntries(SET_ASIDE_REASONS.map((r) => [r, 0])) as Record<SetAsideReason, number>;
    for (const row of rows) if (row.reason in byReason) byReason[row.reason as SetAsideReason] = toInt(row.purchases);
    const implausible = IMPLAUSIBLE.reduce((n, r) => n + byReason[r], 0);
    const total = SET_ASIDE_REASONS.reduce((n, r) => n + byReason[r], 0);
    return { total, implausible, unverified: total - implausible, by_reason: byReason };
  },
});
