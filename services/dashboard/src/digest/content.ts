import type { ChatbotRepository } from '../repositories/chatbot-repository.js';
import type { StatsService } from '../stats/run.js';
import { conversationInsights, engagement, lift, overview, purchases } from '../stats/statistics/index.js';
import { liftSummary } from '../analytics/lift-view.js';
import { moneyIn, shownCurrency } from '../html/money.js';
import { digestWindows, type DigestWindows } from './schedule.js';

/**
 * An alert that fired, as the alerts feature reports it for the digest. The digest reads them
 * only through DigestOptions.firedAlerts, so the alerts table stays that feature's business.
 */
export interface FiredAlert {
  name: string;
  firedAt: Date;
  detail?: string;
}
/** The alerts of one chatbot that fired in [from, to]. */
export type FiredAlertsSource = (chatbotId: string, from: Date, to: Date) => Promise<FiredAlert[]>;

/** A figure of the last 7 days and of the 7 before. */
export interface Compared { current: number; previous: number }

export interface ChatbotDigest {
  id: string;
  name: string;
  /** engagement.total_users */
  visitors: Compared;
  /** overview.total_conversations */
  conversations: Compared;
  /** purchases.conversion_rate_with_chat (percent) */
  conversionWithChat: Compared;
  /** purchases.total_revenue_chatted_purchased (EUR, as the API answers; written in `currency`) */
  revenueAfterChat: Compared;
  /** The chatbot's display currency: the e-mail writes its money in it, as the app pages do (html/money.ts). */
  currency: string;
  /** The rule the revenue follows (purchases.attribution of the current window), named beside the figure. */
  revenueRule?: string;
  /** conversation-insights of the current window: the first 3 of each ranked list. */
  topComplaints: { item: string; count: number }[];
  topMissingInformation: { item: string; count: number }[];
  /** Null when no alerts source is wired in (the section is left out). */
  alerts: FiredAlert[] | null;
  /** The lift statistic of the week in words (the analytics page's lead); null without a holdout. */
  lift?: { headline: string; caveats: string[] } | null;
}

export interface DigestContent {
  windows: DigestWindows;
  chatbots: ChatbotDigest[];
}

export const TOP_ITEMS = 3;

/**
 * The digest's figures, read through the statistics service (the account's ownership check, the
 * range window, the rounding): each one is what `GET /api/dashboard/analytics/stats/…?from=…&to=…`
 * (insights: `timeframe=FROM..TO`) answers the account for the same days.
 */
export function createDigestContent(deps: { stats: StatsService; chatbots: ChatbotRepository; firedAlerts?: FiredAlertsSource }) {
  const { stats } = deps;

  async function figures(accountId: string, chatbotId: string, range: { from: string; to: string }) {
    const asked = { account: accountId, chatbot: chatbotId, frame: range };
    const [e, o, p] = await Promise.all([stats.answer(engagement, asked), stats.answer(overview, asked), stats.answer(purchases, asked)]);
    return {
      visitors: e.total_users,
      conversations: o.total_conversations,
      conversionWithChat: p.conversion_rate_with_chat,
      revenueAfterChat: p.total_revenue_chatted_purchased,
      revenueRule: revenueRuleText(p.attribution),
    };
  }

  return async function digestOf(accountId: string, sendDay: string): Promise<DigestContent> {
    const windows = digestWindows(sendDay);
    const chatbots: ChatbotDigest[] = [];
    // One chatbot at a time: a weekly job has no deadline, and the machine serves requests meanwhile.
    for (const bot of await deps.chatbots.listForAccount(accountId)) {
      const current = await figures(accountId, bot.id, windows.current);
      const previous = await figures(accountId, bot.id, windows.previous);
      const insights = await stats.answer(conversationInsights, { account: accountId, chatbot: bot.id, frame: `${windows.current.from}..${windows.current.to}` });
      const compared = (k: Exclude<keyof typeof current, 'revenueRule'>): Compared => ({ current: current[k], previous: previous[k] });
      const top = (list: { item: string; count: number }[]) => list.slice(0, TOP_ITEMS).map(({ item, count }) => ({ item, count }));
      const alerts = deps.firedAlerts
        ? await deps.firedAlerts(bot.id, new Date(`${windows.current.from}T00:00:00.000Z`), new Date(`${windows.current.to}T23:59:59.999Z`))
        : null;
      // The email leads with what the assistant added, as the page does, when a holdout runs.
      const liftOfWeek = bot.holdoutPercent > 0 ? liftSummary(await stats.answer(lift, { account: accountId, chatbot: bot.id, frame: windows.current }), moneyIn(bot.displayCurrency)) : null;
      chatbots.push({
        id: bot.id, name: bot.name, currency: shownCurrency(bot.displayCurrency),
        visitors: compared('visitors'), conversations: compared('conversations'),
        conversionWithChat: compared('conversionWithChat'), revenueAfterChat: compared('revenueAfterChat'), revenueRule: current.revenueRule,
        topComplaints: top(insights.most_common_complaints), topMissingInformation: top(insights.missing_information_overview),
        alerts, lift: liftOfWeek,
      });
    }
    return { windows, chatbots };
  };
}
/** How the digest names the revenue rule (docs/statistics.md, "Revenue source"). */
export function revenueRuleText(a: { source: 'tracker' | 'orders'; window_days: number | null }): string {
  return a.source === 'orders'
    ? `the shop's orders, net of refunds and cancellations; after chat: a chat within ${a.window_days} ${a.window_days === 1 ? 'day' : 'days'} before the order`
    : 'purchase events on the shop\'s pages; after chat: after the first chat in the week';
}

export type DigestContentReader = ReturnType<typeof createDigestContent>;
