import type { StatsService } from '../stats/run.js';
import { DEFAULT_TIMEFRAME_DAYS } from '../stats/window.js';
import { engagement, purchases } from '../stats/statistics/index.js';
import { round2 } from '../stats/numbers.js';

/**
 * The chatbot list as an account overview (issue 58): per chatbot its visitors and revenue after
 * chat over the analytics page's default window (the last 7 days) and the period before it, from
 * the statistics the JSON API answers (`engagement.total_users`,
 * `purchases.total_revenue_chatted_purchased`), so the list and the API never disagree.
 */
export interface WindowFigures { visitors: number; revenue: number }
export interface ChatbotFigures { current: WindowFigures; previous: WindowFigures }

export const OVERVIEW_DAYS = DEFAULT_TIMEFRAME_DAYS;

/**
 * Every chatbot's figures, asked side by side (one compared pair per chatbot and statistic, all
 * at once) from one "now", so every row and the totals cover the same milliseconds.
 */
export async function accountFigures(stats: StatsService, account: string, chatbotIds: string[], at: Date): Promise<Map<string, ChatbotFigures>> {
  const rows = await Promise.all(chatbotIds.map(async (chatbot): Promise<[string, ChatbotFigures]> => {
    const asked = { account, chatbot, frame: OVERVIEW_DAYS, at };
    const [e, p] = await Promise.all([stats.compared(engagement, asked), stats.compared(purchases, asked)]);
    return [chatbot, {
      current: { visitors: e.total_users, revenue: p.total_revenue_chatted_purchased },
      previous: { visitors: e.previous.total_users, revenue: p.previous.total_revenue_chatted_purchased },
    }];
  }));
  return new Map(rows);
}

/** The account's totals: the sums of its chatbots' figures (money rounded to cents, as the API rounds). */
export function accountTotals(figures: Iterable<ChatbotFigures>): ChatbotFigures {
  const sum: ChatbotFigures = { current: { visitors: 0, revenue: 0 }, previous: { visitors: 0, revenue: 0 } };
  for (const f of figures) {
    for (const period of ['current', 'previous'] as const) {
      sum[period].visitors += f[period].visitors;
      sum[period].revenue = round2(sum[period].revenue + f[period].revenue);
    }
  }
  return sum;
}
