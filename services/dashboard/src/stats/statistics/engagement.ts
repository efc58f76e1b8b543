import Type from 'typebox';
import { percent } from '../numbers.js';
import { numbersOf, readRows } from '../params.js';
import { Count, Rate, Window, WindowedQuery } from '../schemas.js';
import { defineStatistic } from '../statistic.js';

export const EngagementResponse = Type.Object({
  ...Window,
  total_users: Count,
  total_users_approached: Count,
  total_users_opened: Count,
  total_users_chatted: Count,
  approached_ratio: Rate,
  opened_ratio: Rate,
  chatted_ratio: Rate,
});

const QUERY = 'stats/engagement';
const COUNTS = ['total_users', 'total_users_approached', 'total_users_opened', 'total_users_chatted'] as const;

/** The visitor funnel: V and the visitors of V who approached, opened and chatted, with their shares of V. */
export const engagement = defineStatistic()({
  name: 'engagement',
  summary: 'Visitor funnel: approached, opened, chatted',
  query: QUERY,
  frame: 'days',
  compare: true,
  querystring: WindowedQuery,
  response: EngagementResponse,
  read: async ({ clickhouse }, ctx) => numbersOf((await readRows(clickhouse, QUERY, ctx))[0], COUNTS),
  present: (c) => ({
    ...c,
    approached_ratio: percent(c.total_users_approached, c.total_users),
    opened_ratio: percent(c.total_users_opened, c.total_users),
    chatted_ratio: percent(c.total_users_chatted, c.total_users),
  }),
});
